import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import {
  makeCatalog,
  FakeCaller,
  text,
  untilAbort,
  never,
  DEFAULT_TOOLS,
  setup,
  refused,
  value,
  flush,
  sleep,
} from "../../../../test-support/bridge-fixture.js";
import { Bridge } from "./bridge.js";
import { type BridgeEvent } from "./bridge-events.js";
import { ToolChangedError, type ToolCaller } from "../ports/tool-caller.js";
import { TaintRegistry } from "./taint.js";

describe("calling the server", () => {
  it("a slow tool times out and a later call works", async () => {
    const s = setup({
      callTimeoutMs: 50,
      handler: (call) => (call.tool === "echo" ? never() : text("fast")),
    });
    const run = s.run();
    const message = refused(await run.call("tracker__echo", {}));
    expect(message).toContain("timed out after 0.05 s");
    expect(message).toContain("TimeoutError");
    expect(s.caller.calls[0]?.timeoutMs).toBe(50);
    expect(s.caller.calls[0]?.signal.aborted).toBe(true);
    expect(value(await run.call("web__fetch", {}))).toBe("fast");
  });

  it("a tool that honours its signal times out the same way", async () => {
    const s = setup({ callTimeoutMs: 30, handler: (call) => untilAbort(call.signal) });
    expect(refused(await s.run().call("web__fetch", {}))).toContain("timed out after 0.03 s");
  });

  it("oversized results are refused, not cut", async () => {
    const max = BRIDGE_LIMITS.resultMaxBytes;
    const s = setup({
      handler: (call) => text("r".repeat(call.args.size as number)),
    });
    const run = s.run();
    expect(value(await run.call("web__fetch", { size: max }))).toHaveLength(max);
    const message = refused(await run.call("web__fetch", { size: max + 1 }));
    expect(message).toContain(`is ${max + 1} bytes`);
    expect(message).toContain(`limit of ${max} bytes`);
    expect(message).toContain("not cut");
    expect(message.length).toBeLessThan(BRIDGE_LIMITS.refusalMaxChars);
  });

  it("structured content is sent as JSON and counts toward the result limit", async () => {
    const s = setup({
      handler: (call) => ({
        content: [{ type: "text", text: "ignored" }],
        structuredContent: { items: "s".repeat(call.args.size as number) },
      }),
    });
    const run = s.run();
    expect(JSON.parse(value(await run.call("web__fetch", { size: 3 })))).toEqual({ items: "sss" });
    refused(await run.call("web__fetch", { size: BRIDGE_LIMITS.resultMaxBytes }));
  });

  it("isError becomes a refusal with the server's text", async () => {
    const s = setup({
      handler: () => ({ isError: true, content: [{ type: "text", text: "no such issue: 42" }] }),
    });
    const message = refused(await s.run().call("web__fetch", {}));
    expect(message).toContain('"web__fetch" returned an error: no such issue: 42');
    expect(s.callEvents()[0]?.decision).toBe("failed");
  });

  it("a long isError text is bounded", async () => {
    const s = setup({
      handler: () => ({ isError: true, content: [{ type: "text", text: "e".repeat(10_000) }] }),
    });
    expect(refused(await s.run().call("web__fetch", {})).length).toBeLessThanOrEqual(
      BRIDGE_LIMITS.refusalMaxChars,
    );
  });

  it("a host fault raises without its details", async () => {
    const s = setup({
      handler: (call) => {
        if (call.tool === "fetch") throw new Error("secret /home/path at Object.<anonymous>");
        throw new McpError(-32603, "Internal error: /home/user/.config/token=abc");
      },
    });
    const run = s.run();
    const plain = refused(await run.call("web__fetch", {}));
    expect(plain).toBe('"web__fetch" failed on the host side (Error).');
    const mcp = refused(await run.call("tracker__echo", {}));
    expect(mcp).toBe('"tracker__echo" failed on the host side (McpError).');
    for (const message of [plain, mcp]) {
      expect(message).not.toMatch(/secret|home|token|anonymous/);
    }
    // The details stay on the host, in the user's own log.
    expect(s.callEvents()[0]?.detail).toContain("secret /home/path");
  });

  it("a fault whose name carries text is reduced to a generic type name", async () => {
    const s = setup({
      handler: () => {
        const error = new Error("x");
        error.name = "Leak: /home/user/.ssh/id_rsa";
        throw error;
      },
    });
    expect(refused(await s.run().call("web__fetch", {}))).toContain("(Error)");
  });

  it("a caller that throws synchronously or rejects with a non-Error is still contained", async () => {
    const syncCaller: ToolCaller = {
      callTool: () => {
        throw new TypeError("boom /etc/passwd");
      },
    };
    const bridge = new Bridge({
      catalog: () => makeCatalog(DEFAULT_TOOLS),
      caller: syncCaller,
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    expect(refused(await run.call("web__fetch", {}))).toContain("(TypeError)");

    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a caller rejecting with a non-Error is the case under test
    const s = setup({ handler: () => Promise.reject("a string with /secret") });
    const message = refused(await s.run().call("web__fetch", {}));
    expect(message).toContain("failed on the host side");
    expect(message).not.toContain("secret");
  });

  it("a fault on the bridge's own side also reaches the code only by type name", async () => {
    const events: BridgeEvent[] = [];
    const bridge = new Bridge({
      catalog: () => {
        throw new RangeError("catalog broken at /home/user/app");
      },
      caller: new FakeCaller(),
      taint: new TaintRegistry(),
      events: { emit: (e) => events.push(e) },
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    expect(refused(await run.call("web__fetch", {}))).toBe(
      '"web__fetch" failed on the host side (RangeError).',
    );
    expect(events).toMatchObject([{ kind: "call", decision: "failed" }]);
  });

  it("the concurrency cap per server holds", async () => {
    const gates: (() => void)[] = [];
    const s = setup({
      serverConcurrency: 2,
      handler: () =>
        new Promise<CallToolResult>((resolve) => {
          gates.push(() => resolve(text("ok")));
        }),
    });
    const run = s.run();
    const web = Array.from({ length: 6 }, () => run.call("web__fetch", {}));
    const tracker = Array.from({ length: 2 }, () => run.call("tracker__echo", {}));
    await flush();
    // Two per server are out; the other four web calls wait.
    expect(s.caller.inFlight).toBe(4);
    while (gates.length > 0) {
      gates.shift()?.();
      await flush();
    }
    const outcomes = await Promise.all([...web, ...tracker]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(s.caller.calls).toHaveLength(8);
    expect(Object.fromEntries(s.caller.maxInFlightBy)).toEqual({ web: 2, tracker: 2 });
  });

  it("by default a burst starts at serverConcurrencyStart and grows to the setting while the server keeps up", async () => {
    const gates: (() => void)[] = [];
    let clock = 0;
    const s = setup({
      // Every answer takes 50 ms on this clock, however many are out: the server keeps up.
      now: () => clock,
      handler: () =>
        new Promise<CallToolResult>((resolve) => {
          gates.push(() => resolve(text("ok")));
        }),
    });
    const run = s.run();
    const calls = Array.from({ length: 200 }, () => run.call("web__fetch", {}));
    await flush();
    expect(s.caller.inFlight).toBe(BRIDGE_LIMITS.serverConcurrencyStart);
    const waves: number[] = [];
    while (gates.length > 0) {
      waves.push(gates.length);
      clock += 50;
      for (const gate of gates.splice(0)) gate();
      await flush();
    }
    expect((await Promise.all(calls)).every((o) => o.ok)).toBe(true);
    expect(waves.slice(0, 3)).toEqual([16, 32, BRIDGE_LIMITS.defaultServerConcurrency]);
    expect(s.caller.maxInFlightBy.get("web")).toBe(BRIDGE_LIMITS.defaultServerConcurrency);
  });

  it("the cap is shared by all runs and frees up as calls finish", async () => {
    const s = setup({ serverConcurrency: 3, handler: async () => (await sleep(2), text("ok")) });
    const runs = [s.run(), s.run(), s.run()];
    const outcomes = await Promise.all(
      runs.flatMap((run) => Array.from({ length: 8 }, () => run.call("web__fetch", {}))),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(s.caller.calls).toHaveLength(24);
    expect(s.caller.maxInFlightBy.get("web")).toBe(3);
  });

  it("a call queued for a slot is not sent once its tool was marked private meanwhile", async () => {
    let answer!: (result: CallToolResult) => void;
    const first = new Promise<CallToolResult>((resolve) => (answer = resolve));
    const s = setup({ serverConcurrency: 1, handler: () => first });
    const run = s.run();
    const inFlight = run.call("web__fetch", { n: 1 });
    const queued = run.call("web__fetch", { n: 2 });
    await flush();
    expect(s.caller.calls).toHaveLength(1);
    s.setTools(DEFAULT_TOOLS.map((t) => (t.server === "web" ? { ...t, private: true } : t)));
    answer(text("ok"));
    value(await inFlight);
    expect(refused(await queued)).toContain("the tool changed while this call waited");
    expect(s.caller.calls).toHaveLength(1);
    expect(s.taint.isTainted("client-a")).toBe(false);
  });

  it("the server side is asked whether the call still goes after a wait of its own", async () => {
    const s = setup();
    value(await s.run().call("web__fetch", {}));
    const stillGoes = s.caller.calls[0]?.stillGoes;
    expect(stillGoes?.()).toBe(true);
    // A restart that relisted the tool as it was changes nothing; one that changed it does.
    s.setTools(DEFAULT_TOOLS);
    expect(stillGoes?.()).toBe(true);
    s.setTools(DEFAULT_TOOLS.filter((t) => t.server !== "web"));
    expect(stillGoes?.()).toBe(false);
  });

  it("a call the server side did not send, its tool changed over a restart, is refused as changed", async () => {
    const s = setup({
      handler: () => {
        throw new ToolChangedError("the tool changed with the restart");
      },
    });
    expect(refused(await s.run().call("web__fetch", {}))).toContain(
      "the tool changed while this call waited",
    );
    expect(s.callEvents().map((e) => e.decision)).toEqual(["refused"]);
  });

  it("aborting the run rejects queued and in-flight calls", async () => {
    const controller = new AbortController();
    const s = setup({ serverConcurrency: 1, handler: () => never() });
    const run = s.run({ signal: controller.signal });
    const inFlight = run.call("web__fetch", { n: 1 });
    const queued = run.call("web__fetch", { n: 2 });
    await flush();
    expect(s.caller.calls).toHaveLength(1);
    controller.abort();
    const outcomes = await Promise.all([inFlight, queued]);
    for (const outcome of outcomes) {
      expect(refused(outcome)).toContain("cancelled because the run was stopped");
    }
    // The queued call never reached the server, and the signal given out was aborted.
    expect(s.caller.calls).toHaveLength(1);
    expect(s.caller.calls[0]?.signal.aborted).toBe(true);
    // Calls after the abort go nowhere either.
    refused(await run.call("web__fetch", {}));
    expect(s.caller.calls).toHaveLength(1);
    expect(s.callEvents().map((e) => e.decision)).toEqual(["failed", "failed", "failed"]);
  });

  it("a caller that ignores its signal frees its slot after a grace period", async () => {
    const s = setup({
      serverConcurrency: 1,
      callTimeoutMs: 20,
      handler: (call) => (call.args.hang === true ? never() : text("ok")),
    });
    const run = s.run();
    refused(await run.call("web__fetch", { hang: true }));
    // The slot is held for one more timeout, then given back.
    expect(value(await run.call("web__fetch", {}))).toBe("ok");
  });
});

describe("the end of a run", () => {
  it("settled() resolves once every call, in flight or queued, has its outcome and event", async () => {
    const s = setup({
      handler: () => new Promise<CallToolResult>(() => undefined),
      serverConcurrency: 1,
    });
    const controller = new AbortController();
    const run = s.run({ signal: controller.signal });
    const first = run.call("web__fetch", { url: "a" });
    const queued = run.call("web__fetch", { url: "b" });
    controller.abort();
    await run.settled();
    expect(s.callEvents().map((e) => e.decision)).toEqual(["failed", "failed"]);
    await expect(first).resolves.toMatchObject({ ok: false });
    await expect(queued).resolves.toMatchObject({ ok: false });
  });
});

import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../../../shared/limits.js";
import type { Catalog, CatalogTool } from "../catalog/catalog-types.js";
import { Bridge, type BridgeOptions, type CallOutcome, type RunCalls } from "./bridge.js";
import type { BridgeCallEvent, BridgeEvent } from "./bridge-events.js";
import { TaintRegistry } from "./taint.js";
import type { ToolCaller } from "./tool-caller.js";

// ---------------------------------------------------------------------------------------
// A hand-built catalog and a fake ToolCaller: the bridge is pure logic, so these tests
// need no server and no Docker. The real end-to-end tests exercise the same rules later.

const ajv = new Ajv({ strict: false });

interface ToolSpec {
  pyName: string;
  server?: string;
  tool?: string;
  private?: boolean;
  schema?: Record<string, unknown>;
}

const OPEN_SCHEMA = { type: "object" };

function makeTool(spec: ToolSpec): CatalogTool {
  const inputSchema = spec.schema ?? OPEN_SCHEMA;
  return {
    pyName: spec.pyName,
    server: spec.server ?? "main",
    tool: spec.tool ?? spec.pyName,
    description: "",
    private: spec.private ?? false,
    inputSchema,
    validate: ajv.compile(inputSchema),
    stub: "",
    summary: "",
  };
}

function makeCatalog(specs: ToolSpec[]): Catalog {
  const tools = specs.map(makeTool);
  return {
    tools,
    byPyName: new Map(tools.map((t) => [t.pyName, t])),
    warnings: [],
    leftOut: [],
  };
}

interface SeenCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs: number;
}

type Handler = (call: SeenCall) => Promise<CallToolResult> | CallToolResult;

/** Records every call that reached "the server" and answers through `handler`. */
class FakeCaller implements ToolCaller {
  readonly calls: SeenCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly inFlightBy = new Map<string, number>();
  readonly maxInFlightBy = new Map<string, number>();
  constructor(public handler: Handler = echo) {}

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const call = { server, tool, args, ...opts };
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const mine = (this.inFlightBy.get(server) ?? 0) + 1;
    this.inFlightBy.set(server, mine);
    this.maxInFlightBy.set(server, Math.max(this.maxInFlightBy.get(server) ?? 0, mine));
    try {
      return await this.handler(call);
    } finally {
      this.inFlight--;
      this.inFlightBy.set(server, (this.inFlightBy.get(server) ?? 1) - 1);
    }
  }
}

function echo(call: SeenCall): CallToolResult {
  return { content: [{ type: "text", text: `${call.tool} ${JSON.stringify(call.args)}` }] };
}

function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

/** Resolves when `signal` aborts: a server that answers only when told to stop. */
function untilAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(new Error("aborted by signal")), {
      once: true,
    });
  });
}

function never(): Promise<never> {
  return new Promise(() => undefined);
}

interface Setup {
  bridge: Bridge;
  caller: FakeCaller;
  taint: TaintRegistry;
  events: BridgeEvent[];
  callEvents: () => BridgeCallEvent[];
  run: (opts?: {
    client?: string;
    maxCalls?: number;
    signal?: AbortSignal;
    onBudgetSpent?: () => void;
  }) => RunCalls;
}

const DEFAULT_TOOLS: ToolSpec[] = [
  {
    pyName: "notes__search",
    server: "notes",
    tool: "search",
    private: true,
    schema: {
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
      additionalProperties: false,
    },
  },
  { pyName: "notes__read", server: "notes", tool: "read", private: true },
  { pyName: "vault__get", server: "vault", tool: "get", private: true },
  {
    pyName: "tracker__find_issue",
    server: "tracker",
    tool: "find-issue",
    schema: {
      type: "object",
      properties: { text: { type: "string" }, limit: { type: "integer" } },
      additionalProperties: false,
    },
  },
  { pyName: "tracker__echo", server: "tracker", tool: "echo" },
  { pyName: "web__fetch", server: "web", tool: "fetch" },
];

function setup(
  opts: { tools?: ToolSpec[]; handler?: Handler } & Partial<
    Pick<BridgeOptions, "callTimeoutMs" | "serverConcurrency">
  > = {},
): Setup {
  const catalog = makeCatalog(opts.tools ?? DEFAULT_TOOLS);
  const caller = new FakeCaller(opts.handler);
  const taint = new TaintRegistry();
  const events: BridgeEvent[] = [];
  const bridge = new Bridge({
    catalog: () => catalog,
    caller,
    taint,
    events: { emit: (e) => events.push(e) },
    callTimeoutMs: opts.callTimeoutMs,
    serverConcurrency: opts.serverConcurrency,
  });
  let runs = 0;
  return {
    bridge,
    caller,
    taint,
    events,
    callEvents: () => events.filter((e): e is BridgeCallEvent => e.kind === "call"),
    run: (o = {}) =>
      bridge.startRun({
        runId: `run-${++runs}`,
        client: o.client ?? "client-a",
        maxCalls: o.maxCalls,
        signal: o.signal ?? new AbortController().signal,
        onBudgetSpent: o.onBudgetSpent,
      }),
  };
}

function refused(outcome: CallOutcome): string {
  if (outcome.ok) throw new Error(`expected a refusal, got ${outcome.value}`);
  return outcome.message;
}

function value(outcome: CallOutcome): string {
  if (!outcome.ok) throw new Error(`expected a value, got refusal: ${outcome.message}`);
  return outcome.value;
}

// ---------------------------------------------------------------------------------------

describe("which tools can be called", () => {
  it("unknown tools are refused before the server sees them", async () => {
    const s = setup();
    const message = refused(await s.run().call("tracker__find_isue", { text: "x" }));
    expect(s.caller.calls).toHaveLength(0);
    expect(message).toContain('Unknown tool "tracker__find_isue"');
    // A close name is suggested, and a name missing its server prefix too.
    expect(message).toContain("tracker__find_issue");
    expect(refused(await s.run().call("fetch", {}))).toContain("web__fetch");
  });

  it("the allowlist keeps other tools out", async () => {
    // The server has `delete`, but the catalog (the allowlist) does not hold it.
    const s = setup({ handler: () => text("deleted everything") });
    const run = s.run();
    for (const name of ["tracker__delete", "delete", "__import__", "TOOLS", ""]) {
      expect(refused(await run.call(name, {}))).toMatch(/Unknown tool|not among/);
    }
    expect(s.caller.calls).toHaveLength(0);
  });

  it("a non-string tool name is refused", async () => {
    const s = setup();
    const run = s.run();
    expect(refused(await run.call(42 as unknown as string, {}))).toContain("must be a string");
    expect(s.caller.calls).toHaveLength(0);
  });

  it("the catalog is read live, so a tool removed from it is refused from then on", async () => {
    let catalog = makeCatalog(DEFAULT_TOOLS);
    const caller = new FakeCaller();
    const bridge = new Bridge({
      catalog: () => catalog,
      caller,
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    value(await run.call("web__fetch", {}));
    catalog = makeCatalog(DEFAULT_TOOLS.filter((t) => t.pyName !== "web__fetch"));
    refused(await run.call("web__fetch", {}));
    expect(caller.calls).toHaveLength(1);
  });
});

describe("arguments", () => {
  it("arguments outside the schema are refused: wrong type", async () => {
    const s = setup();
    const message = refused(await s.run().call("tracker__find_issue", { text: 5 }));
    expect(message).toContain("do not match its schema");
    expect(message).toContain("/text must be string");
    expect(s.caller.calls).toHaveLength(0);
  });

  it("arguments outside the schema are refused: undeclared property when the schema forbids it", async () => {
    const s = setup();
    const message = refused(
      await s.run().call("tracker__find_issue", { text: "a", password: "hunter2" }),
    );
    expect(message).toContain("must NOT have additional properties");
    expect(message).toContain('"password"');
    expect(s.caller.calls).toHaveLength(0);
  });

  it("arguments outside the schema are refused: missing required property", async () => {
    const s = setup();
    const message = refused(await s.run().call("notes__search", {}));
    expect(message).toContain("must have required property 'query'");
    expect(s.caller.calls).toHaveLength(0);
  });

  it("undeclared properties pass when the schema allows them", async () => {
    const s = setup();
    value(await s.run().call("web__fetch", { anything: [1, 2, 3] }));
    expect(s.caller.calls[0]?.args).toEqual({ anything: [1, 2, 3] });
  });

  it("oversized arguments are refused", async () => {
    const s = setup();
    const run = s.run();
    // {"text":"..."} is 11 bytes of JSON around the string.
    const atLimit = "x".repeat(BRIDGE_LIMITS.argsMaxBytes - 11);
    value(await run.call("tracker__find_issue", { text: atLimit }));
    const message = refused(await run.call("tracker__find_issue", { text: `${atLimit}x` }));
    expect(message).toContain(`${BRIDGE_LIMITS.argsMaxBytes + 1} bytes`);
    expect(message).toContain(`the limit is ${BRIDGE_LIMITS.argsMaxBytes} bytes`);
    // Bytes, not characters: "é" is two bytes in UTF-8.
    const wide = "é".repeat(Math.ceil(BRIDGE_LIMITS.argsMaxBytes / 2));
    expect(refused(await run.call("tracker__find_issue", { text: wide }))).toContain("limit");
    expect(s.caller.calls).toHaveLength(1);
  });

  it("non-object arguments are refused", async () => {
    const s = setup();
    const run = s.run();
    const cases: [unknown, string][] = [
      [[], "list"],
      [null, "None"],
      ["query", "str"],
      [3, "int"],
      [true, "bool"],
    ];
    for (const [args, pyType] of cases) {
      expect(refused(await run.call("web__fetch", args))).toContain(`not ${pyType}`);
    }
    expect(refused(await run.call("web__fetch", undefined))).toContain("JSON");
    expect(refused(await run.call("web__fetch", new Map()))).toContain("dict");
    expect(s.caller.calls).toHaveLength(0);
  });

  it("the server gets a JSON copy of exactly what was checked", async () => {
    const s = setup();
    const args = { text: "a" };
    value(await s.run().call("tracker__find_issue", args));
    expect(s.caller.calls[0]?.args).toEqual(args);
    expect(s.caller.calls[0]?.args).not.toBe(args);
    expect(s.caller.calls[0]).toMatchObject({ server: "tracker", tool: "find-issue" });
  });
});

describe("budget", () => {
  it("a run has a fixed budget of calls: the 201st is refused", async () => {
    const s = setup();
    const run = s.run();
    for (let i = 0; i < BRIDGE_LIMITS.defaultMaxCallsPerRun; i++) {
      value(await run.call("web__fetch", { i }));
    }
    const message = refused(await run.call("web__fetch", {}));
    expect(message).toContain(`budget of ${BRIDGE_LIMITS.defaultMaxCallsPerRun} tool calls`);
    expect(s.caller.calls).toHaveLength(BRIDGE_LIMITS.defaultMaxCallsPerRun);
    expect(run.count).toBe(BRIDGE_LIMITS.defaultMaxCallsPerRun + 1);
    // A new run starts with a fresh budget.
    value(await s.run().call("web__fetch", {}));
  });

  it("refusals count and the budget holds", async () => {
    const s = setup();
    const run = s.run({ maxCalls: 5 });
    refused(await run.call("nope", {}));
    refused(await run.call("web__fetch", []));
    refused(await run.call("tracker__find_issue", { text: 1 }));
    value(await run.call("web__fetch", {}));
    value(await run.call("web__fetch", {}));
    expect(refused(await run.call("web__fetch", {}))).toContain("budget of 5");
    expect(run.count).toBe(6);
    expect(s.caller.calls).toHaveLength(2);
  });

  it("a spent budget is checked before anything else: the schema is not run", async () => {
    const s = setup();
    const plain = makeTool({ pyName: "web__fetch" });
    let validations = 0;
    const counting = ((data: unknown) => {
      validations += 1;
      return plain.validate(data);
    }) as unknown as CatalogTool["validate"];
    const counted: CatalogTool = { ...plain, validate: counting };
    const bridge = new Bridge({
      catalog: () => ({
        tools: [counted],
        byPyName: new Map([["web__fetch", counted]]),
        warnings: [],
        leftOut: [],
      }),
      caller: s.caller,
      taint: s.taint,
      events: { emit: () => undefined },
    });
    const run = bridge.startRun({
      runId: "spent",
      client: "c",
      maxCalls: 2,
      signal: new AbortController().signal,
    });
    value(await run.call("web__fetch", {}));
    value(await run.call("web__fetch", {}));
    expect(validations).toBe(2);
    for (let i = 0; i < 5; i++) {
      expect(refused(await run.call("web__fetch", { i }))).toContain("budget of 2");
    }
    // Past the budget, not even an unknown name is looked at.
    expect(refused(await run.call("no_such_tool", {}))).toContain("budget of 2");
    expect(validations).toBe(2);
  });

  it("calls made at once cannot overrun the budget", async () => {
    const s = setup();
    const run = s.run({ maxCalls: 3 });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => run.call("web__fetch", {})),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    expect(s.caller.calls).toHaveLength(3);
  });

  it("past the budget a call is refused before any other check, logged only as a count", async () => {
    const s = setup();
    const run = s.run({ maxCalls: 1 });
    value(await run.call("web__fetch", {}));
    // An unknown name, bad arguments: past the budget none of it is even looked at.
    expect(refused(await run.call("nope", {}))).toContain("budget of 1");
    expect(refused(await run.call("web__fetch", []))).toContain("budget of 1");
    expect(s.callEvents()).toHaveLength(1);
    expect(s.events.filter((e) => e.kind === "past_budget")).toMatchObject([
      { runId: "run-1", client: "client-a", tool: "nope" },
      { runId: "run-1", client: "client-a", tool: "web__fetch" },
    ]);
    expect(run.pastBudget).toBe(2);
    expect(run.count).toBe(3);
  });

  it("a run that keeps calling past its budget is told to stop, once", async () => {
    const s = setup();
    let stops = 0;
    const run = s.run({ maxCalls: 2, onBudgetSpent: () => stops++ });
    for (let i = 0; i < 2 + RUN_COST_LIMITS.refusalsPastBudget - 1; i++) {
      await run.call("web__fetch", {});
    }
    expect(stops).toBe(0);
    refused(await run.call("web__fetch", {}));
    expect(stops).toBe(1);
    refused(await run.call("web__fetch", {}));
    expect(stops).toBe(1);
    expect(s.caller.calls).toHaveLength(2);
  });

  it("a maxCalls out of range is a programming error", () => {
    const s = setup();
    expect(() => s.run({ maxCalls: -1 })).toThrow(RangeError);
    expect(() => s.run({ maxCalls: 1.5 })).toThrow(RangeError);
    expect(() => s.run({ maxCalls: BRIDGE_LIMITS.maxCallsPerRunCeiling + 1 })).toThrow(RangeError);
  });
});

describe("secrets stay with their server (issue 8 §9)", () => {
  it("masks secret values in results, error results and refusals before the code sees them", async () => {
    const key = "sk-live-0123456789";
    const catalog = makeCatalog(DEFAULT_TOOLS);
    const caller = new FakeCaller((call) =>
      call.args["fail"] === true
        ? { content: [{ type: "text", text: `bad key ${key}` }], isError: true }
        : text(`your key is ${key}, again ${key}`),
    );
    const bridge = new Bridge({
      catalog: () => catalog,
      caller,
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
      secrets: () => [key],
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    expect(value(await run.call("web__fetch", {}))).toBe("your key is [secret], again [secret]");
    expect(refused(await run.call("web__fetch", { fail: true }))).toContain("bad key [secret]");
    // The code may name the key itself: the refusal quoting it does not echo it back.
    expect(refused(await run.call(`tool_${key}`, {}))).not.toContain(key);
  });
});

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

describe("taint", () => {
  it("only private tools can be called after a private call", async () => {
    const s = setup();
    const run = s.run();
    value(await run.call("web__fetch", {}));
    value(await run.call("notes__search", { query: "salary" }));
    const message = refused(await run.call("web__fetch", {}));
    expect(message).toContain('"web__fetch" refused');
    expect(message).toContain('private tool "notes__search"');
    expect(message).toContain("until the user resets it in Code Mode");
    // Private tools still work, on any server.
    value(await run.call("notes__read", {}));
    value(await run.call("vault__get", {}));
    expect(s.caller.calls.map((c) => c.tool)).toEqual(["fetch", "search", "read", "get"]);
  });

  it("a refused private call does not taint", async () => {
    const s = setup();
    const run = s.run({ maxCalls: 3 });
    refused(await run.call("notes__search", { query: 1 }));
    refused(await run.call("notes__search", []));
    expect(s.taint.isTainted("client-a")).toBe(false);
    value(await run.call("web__fetch", {}));
    // Nor does one refused by the budget.
    refused(await run.call("notes__search", { query: "x" }));
    expect(s.taint.isTainted("client-a")).toBe(false);
  });

  it("a private call in a stopped run does not taint", async () => {
    const s = setup();
    const controller = new AbortController();
    controller.abort();
    refused(await s.run({ signal: controller.signal }).call("notes__search", { query: "x" }));
    expect(s.taint.isTainted("client-a")).toBe(false);
    expect(s.caller.calls).toHaveLength(0);
  });

  it("a failed private call still taints", async () => {
    const s = setup({
      handler: () => {
        throw new Error("connection reset");
      },
    });
    const run = s.run();
    refused(await run.call("notes__search", { query: "x" }));
    expect(s.taint.get("client-a")).toMatchObject({
      client: "client-a",
      server: "notes",
      tool: "search",
      pyName: "notes__search",
    });
    expect(refused(await run.call("web__fetch", {}))).toContain("only private tools");
  });

  it("a private call that times out or returns isError still taints", async () => {
    const s = setup({
      callTimeoutMs: 20,
      handler: (call) =>
        call.tool === "search"
          ? never()
          : { isError: true, content: [{ type: "text", text: "no" }] },
    });
    refused(await s.run({ client: "one" }).call("notes__search", { query: "x" }));
    refused(await s.run({ client: "two" }).call("vault__get", {}));
    expect(s.taint.isTainted("one")).toBe(true);
    expect(s.taint.isTainted("two")).toBe(true);
  });

  it("the taint lasts across runs and across servers", async () => {
    const s = setup();
    value(await s.run().call("vault__get", {}));
    const later = s.run();
    expect(refused(await later.call("tracker__echo", {}))).toContain('private tool "vault__get"');
    expect(refused(await later.call("web__fetch", {}))).toContain("only private tools");
    value(await later.call("notes__read", {}));
    // The first private call stays the recorded one.
    expect(s.taint.get("client-a")?.pyName).toBe("vault__get");
    expect(s.caller.calls.map((c) => c.server)).toEqual(["vault", "notes"]);
  });

  it("the taint is per client key and reset clears it", async () => {
    const s = setup();
    value(await s.run({ client: "claude" }).call("notes__read", {}));
    value(await s.run({ client: "cursor" }).call("web__fetch", {}));
    refused(await s.run({ client: "claude" }).call("web__fetch", {}));
    expect(s.taint.reset("claude")).toBe(true);
    value(await s.run({ client: "claude" }).call("web__fetch", {}));
  });

  it("a private call and a public call made at once: the public one is refused", async () => {
    const s = setup({ handler: async (call) => (await sleep(5), echo(call)) });
    const run = s.run();
    const other = s.run();
    const [priv, pub, pubOtherRun] = await Promise.all([
      run.call("notes__read", {}),
      run.call("web__fetch", {}),
      other.call("tracker__echo", {}),
    ]);
    expect(priv.ok).toBe(true);
    expect(refused(pub)).toContain("only private tools");
    expect(refused(pubOtherRun)).toContain("only private tools");
    expect(s.caller.calls.map((c) => c.tool)).toEqual(["read"]);
  });

  it("the client is tainted before the private call goes out", async () => {
    let taintedWhenSent: boolean | undefined;
    const s = setup({
      handler: (call) => {
        taintedWhenSent = s.taint.isTainted("client-a");
        return echo(call);
      },
    });
    value(await s.run().call("notes__read", {}));
    expect(taintedWhenSent).toBe(true);
  });
});

describe("events", () => {
  it("one event per call with the right decision, sizes and hash", async () => {
    let clock = 1_000;
    const taint = new TaintRegistry();
    const events: BridgeEvent[] = [];
    const caller = new FakeCaller((call) => {
      clock += 7;
      if (call.tool === "echo") throw new Error("down");
      return text("héllo");
    });
    const bridge = new Bridge({
      catalog: () => makeCatalog(DEFAULT_TOOLS),
      caller,
      taint,
      events: { emit: (e) => events.push(e) },
      now: () => clock,
    });
    const run = bridge.startRun({
      runId: "run-7",
      client: "c",
      signal: new AbortController().signal,
    });
    await run.call("web__fetch", { q: "a" });
    await run.call("missing", { q: "ab" });
    await run.call("tracker__echo", {});
    await run.call("notes__read", {});
    await run.call("web__fetch", {});

    const callEvents = events.filter((e): e is BridgeCallEvent => e.kind === "call");
    expect(callEvents).toHaveLength(5);
    const sha = createHash("sha256").update("héllo", "utf8").digest("hex");
    expect(callEvents[0]).toEqual({
      kind: "call",
      runId: "run-7",
      client: "c",
      server: "web",
      tool: "web__fetch",
      serverTool: "fetch",
      decision: "allowed",
      argBytes: 9,
      args: { q: "a" },
      resultBytes: 6,
      resultHash: sha,
      durationMs: 7,
      private: false,
      at: new Date(1_007),
    });
    expect(callEvents[1]).toMatchObject({
      decision: "refused",
      tool: "missing",
      argBytes: 10,
      durationMs: 0,
      private: false,
    });
    expect(callEvents[1]?.server).toBeUndefined();
    expect(callEvents[1]?.resultHash).toBeUndefined();
    expect(callEvents[2]).toMatchObject({ decision: "failed", detail: "down", server: "tracker" });
    expect(callEvents[2]?.reason).toContain("(Error)");
    expect(callEvents[3]).toMatchObject({ decision: "allowed", private: true });
    expect(callEvents[4]?.decision).toBe("refused");
    expect(callEvents[4]?.reason).toContain("only private tools");

    const taintEvents = events.filter((e) => e.kind === "taint");
    expect(taintEvents).toEqual([
      {
        kind: "taint",
        runId: "run-7",
        client: "c",
        server: "notes",
        tool: "notes__read",
        serverTool: "read",
        at: taint.get("c")?.at,
      },
    ]);
  });

  it("a throwing event sink does not change the outcome", async () => {
    const bridge = new Bridge({
      catalog: () => makeCatalog(DEFAULT_TOOLS),
      caller: new FakeCaller(),
      taint: new TaintRegistry(),
      events: {
        emit: () => {
          throw new Error("disk full");
        },
      },
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    value(await run.call("web__fetch", {}));
    refused(await run.call("nope", {}));
  });
});

describe("refusal messages", () => {
  it("never exceed refusalMaxChars, even for a huge unknown name", async () => {
    const s = setup({
      tools: [
        ...DEFAULT_TOOLS,
        {
          pyName: "deep",
          schema: {
            type: "object",
            properties: { ["k".repeat(2000)]: { type: "string" } },
          },
        },
      ],
    });
    const run = s.run();
    const messages = [
      refused(await run.call("x".repeat(100_000), {})),
      refused(await run.call("\u{1F600}".repeat(1000), {})),
      refused(await run.call("deep", { ["k".repeat(2000)]: 1 })),
      refused(await run.call("tracker__find_issue", { ["p".repeat(5000)]: 1 })),
    ];
    for (const message of messages) {
      expect(message.length).toBeLessThanOrEqual(BRIDGE_LIMITS.refusalMaxChars);
    }
    // The event keeps the name bounded too.
    expect(s.callEvents()[0]?.tool.length).toBeLessThanOrEqual(BRIDGE_LIMITS.eventNameMaxChars);
  });

  it("quote names so control characters cannot shape the message", async () => {
    const s = setup();
    const message = refused(await s.run().call('evil"\nToolError: fake', {}));
    expect(message).not.toContain("\n");
    expect(message).toContain('"evil\\"\\nToolError: fake"');
  });
});

function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

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

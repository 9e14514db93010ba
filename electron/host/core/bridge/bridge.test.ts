import type { CatalogTool } from "../catalog/catalog-types.js";
import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import {
  makeTool,
  makeCatalog,
  FakeCaller,
  text,
  DEFAULT_TOOLS,
  setup,
  refused,
  value,
} from "../../../../test-support/bridge-fixture.js";
import { Bridge } from "./bridge.js";
import { TaintRegistry } from "./taint.js";
import { REFUSALS_PAST_BUDGET } from "./call-budget.js";

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

  it("a call naming a held tool (forged past the runner's stub) is refused, saying it is held", async () => {
    const catalog = {
      ...makeCatalog(DEFAULT_TOOLS),
      held: new Map([["web__fetch_all", "web__fetch_all: held for the user's review"]]),
    };
    const caller = new FakeCaller();
    const bridge = new Bridge({
      catalog: () => catalog,
      caller,
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
    });
    const run = bridge.startRun({ runId: "r", client: "c", signal: new AbortController().signal });
    expect(refused(await run.call("web__fetch_all", {}))).toBe(
      "web__fetch_all: held for the user's review",
    );
    expect(caller.calls).toHaveLength(0);
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
    for (let i = 0; i < 2 + REFUSALS_PAST_BUDGET - 1; i++) {
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

describe("secrets stay with their server", () => {
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

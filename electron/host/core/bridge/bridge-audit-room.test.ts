import { describe, expect, it } from "vitest";
import { RUN_COST_LIMITS } from "../../../../shared/limits.js";
import { refused, setup, value } from "../../../../test-support/bridge-fixture.js";
import type { BridgeCallAdmission } from "./bridge-events.js";

describe("room in the audit log, asked before a call goes out", () => {
  it("a call the log has no room for is refused and never reaches the server, nor taints", async () => {
    const asked: BridgeCallAdmission[] = [];
    const s = setup({
      reserve: (call) => {
        asked.push(call);
        return null;
      },
    });
    const run = s.run();
    const message = refused(await run.call("notes__search", { query: "salary" }));
    expect(message).toBe(
      `"notes__search" refused: this run has written as much to the audit log as one run may ` +
        `(${RUN_COST_LIMITS.auditBytesPerRun} bytes), so no more calls go out.`,
    );
    expect(s.caller.calls).toEqual([]);
    // A private tool's call refused before it went out does not taint.
    expect(s.taint.get("client-a")).toBeUndefined();
    expect(asked).toEqual([
      {
        runId: run.runId,
        client: "client-a",
        server: "notes",
        tool: "notes__search",
        serverTool: "search",
        argBytes: 18,
        args: { query: "salary" },
        private: true,
      },
    ]);
    // Its event carries no room: the log counts it with the run's other refusals.
    expect(s.callEvents()).toMatchObject([{ decision: "refused", tool: "notes__search" }]);
    expect(s.callEvents()[0]?.reserved).toBeUndefined();
  });

  it("a call let out carries its room back in its event; one refused earlier asks for none", async () => {
    let asked = 0;
    const s = setup({ reserve: () => (asked += 1) * 1000 });
    const run = s.run();
    expect(value(await run.call("web__fetch", { url: "a" }))).toContain("fetch");
    expect(refused(await run.call("no_such_tool", {}))).toContain("Unknown tool");
    expect(refused(await run.call("tracker__find_issue", { limit: "x" }))).toContain("schema");
    expect(asked).toBe(1);
    const [sent, unknown, invalid] = s.callEvents();
    expect(sent).toMatchObject({ decision: "allowed", reserved: 1000 });
    expect(unknown?.reserved).toBeUndefined();
    expect(invalid?.reserved).toBeUndefined();
  });

  it("a sink that fails when asked for room lets nothing out", async () => {
    const s = setup({
      reserve: () => {
        throw new Error("broken sink");
      },
    });
    // A host fault: the code gets the exception's type name, the log its message.
    expect(refused(await s.run().call("web__fetch", {}))).toBe(
      '"web__fetch" failed on the host side (Error).',
    );
    expect(s.caller.calls).toEqual([]);
    expect(s.callEvents()).toMatchObject([{ decision: "failed", detail: "broken sink" }]);
  });

  it("without a log (serve, tests) every call goes out", async () => {
    const s = setup();
    expect(value(await s.run().call("web__fetch", {}))).toContain("fetch");
    expect(s.callEvents()[0]?.reserved).toBeUndefined();
  });
});

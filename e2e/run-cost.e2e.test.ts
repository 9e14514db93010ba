// One run must not be able to flood the audit log or the disk. Each test
// runs the attack for real: `codemode daemon` as a process on its own home, the toy server
// wrapped, a real MCP client over the shim, real Docker; then measures what the data
// directory grew by and how soon the run was stopped.

import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../shared/limits.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { dirBytes } from "../test-support/dir-size.js";
import { BUDGET_FLOOD, CHUNK_FLOOD, LOG_FLOOD } from "../test-support/run-cost-attacks.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { REFUSALS_PAST_BUDGET } from "../electron/host/core/bridge/call-budget.js";
import { MESSAGES_PER_RUN } from "../electron/host/sandbox/runner/stop-messages.js";

const fx = await dockerOrSkip();

const KiB = 1024;
const MiB = 1024 * KiB;

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("run cost: a run cannot flood the audit log or the disk", () => {
  const home = makeHome("codemode-cost-");
  let shim: McpSession;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
    await startDaemon(home);
    shim = await connectShim(home, { name: "flooder", version: "1" });
    // A first run pays for the container start, so the runs measured below do not.
    await shim.run("print(1)");
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  it("run-cost: a run that keeps calling past its budget is stopped, its refusals counted in one entry", async () => {
    const before = dirBytes(home);
    const started = Date.now();
    const result = await shim.run(BUDGET_FLOOD, { timeout_s: 20 });
    const seconds = (Date.now() - started) / 1000;
    const grew = dirBytes(home) - before;

    expect(result.stopped).toBe("call_budget");
    expect(result.timed_out).toBe(false);
    expect(result.error).toContain("after its budget of calls was spent");
    // Stopped well before the 20 s deadline (in 1-3 s here; the margin is for a busy CI machine).
    expect(seconds).toBeLessThan(15);
    // The budget's calls (~2.5 KiB of entry each) and a few lines: well under 1 MiB.
    expect(grew).toBeLessThan(1024 * KiB);

    const runId = auditEntries(home, "run_finished", "flooder").at(-1)?.runId;
    const calls = auditEntries(home, "call", "flooder").filter((e) => e.runId === runId);
    expect(calls).toHaveLength(BRIDGE_LIMITS.defaultMaxCallsPerRun);
    const summary = auditEntries(home, "calls_not_logged", "flooder").filter(
      (e) => e.runId === runId,
    );
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ cause: "call_budget", tools: ["toy__echo"] });
    expect(summary[0]?.count).toBeGreaterThanOrEqual(REFUSALS_PAST_BUDGET);
    expect(summary[0]?.count).toBeLessThan(REFUSALS_PAST_BUDGET + 50);

    const verify = await runCli(home, ["audit", "verify"]);
    expect(verify.code).toBe(0);
  }, 60_000);

  it("run-cost: a run that catches every refusal and stops calling still finishes normally", async () => {
    const result = await shim.run(
      [
        "n = 0",
        "for _ in range(205):",
        "    try:",
        '        await toy__echo({"text": "a"})',
        "    except ToolError:",
        "        n += 1",
        "print(n)",
      ].join("\n"),
    );
    expect(result).toMatchObject({ stopped: null, exit_code: 0, stdout: "5\n" });
  }, 60_000);

  it("run-cost: a run that floods the protocol with empty output chunks is stopped at the message cap", async () => {
    const before = dirBytes(home);
    const started = Date.now();
    const result = await shim.run(CHUNK_FLOOD, { timeout_s: 20 });
    const seconds = (Date.now() - started) / 1000;
    expect(result.stopped).toBe("message_limit");
    expect(result.error).toContain(`more than ${MESSAGES_PER_RUN} messages`);
    expect(seconds).toBeLessThan(15);
    expect(dirBytes(home) - before).toBeLessThan(64 * KiB);
  }, 60_000);
});

describe.skipIf(!fx)("run cost: what one run may write to the audit log is capped", () => {
  let home: string;
  let shim: McpSession;

  beforeAll(async () => {
    // Made here, not at collection: the describe above removes every home when it ends.
    home = makeHome("codemode-cost-");
    writeServers(home, { toy: toyServer() });
    // The budget at its ceiling: the calls within it alone would write ~25 MB of entries.
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ maxCallsPerRun: BRIDGE_LIMITS.maxCallsPerRunCeiling }),
    );
    await startDaemon(home);
    shim = await connectShim(home, { name: "logger", version: "1" });
    await shim.run("print(1)");
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  it("run-cost: a run whose audit entries reach the per-run cap is stopped, its later calls counted", async () => {
    const before = dirBytes(home);
    const result = await shim.run(LOG_FLOOD, { timeout_s: 60 });
    const grew = dirBytes(home) - before;
    expect(result.stopped).toBe("audit_limit");
    expect(result.calls).toBeLessThan(BRIDGE_LIMITS.maxCallsPerRunCeiling);
    expect(grew).toBeLessThan(RUN_COST_LIMITS.auditBytesPerRun + 256 * KiB);
    expect(grew).toBeGreaterThan(RUN_COST_LIMITS.auditBytesPerRun - 1 * MiB);

    const runId = auditEntries(home, "run_finished", "logger").at(-1)?.runId;
    const summary = auditEntries(home, "calls_not_logged", "logger").filter(
      (e) => e.runId === runId,
    );
    expect(summary).toMatchObject([{ cause: "audit_limit", tools: ["toy__echo"] }]);
    const verify = await runCli(home, ["audit", "verify"]);
    expect(verify.code).toBe(0);
  }, 120_000);
});

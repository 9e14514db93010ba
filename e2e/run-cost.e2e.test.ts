// Issue 8 section 3: one run must not be able to flood the audit log or the disk. Each test
// runs the attack for real: `codemode daemon` as a process on its own home, the toy server
// wrapped, a real MCP client over the shim, real Docker; then measures what the data
// directory grew by and how soon the run was stopped.

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
  type ShimClient,
} from "../test-support/daemon.js";
import { dirBytes } from "../test-support/dir-size.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

const KiB = 1024;

/**
 * The attack of the issue, through the public API alone: calls gathered in a loop, each
 * ToolError caught, so the run goes on after its budget is spent. Every call carries ~2 KiB
 * of arguments, which the old code logged in full for every refusal.
 */
export const BUDGET_FLOOD = `
import asyncio
big = "x" * 2000
while True:
    await asyncio.gather(*[toy__echo({"text": big}) for _ in range(50)], return_exceptions=True)
`;

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("run cost: a run cannot flood the audit log or the disk", () => {
  const home = makeHome("codemode-cost-");
  let shim: ShimClient;

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
    // Stopped in moments, not at the 20 s deadline.
    expect(seconds).toBeLessThan(8);
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
    expect(summary[0]?.count).toBeGreaterThanOrEqual(RUN_COST_LIMITS.refusalsPastBudget);
    expect(summary[0]?.count).toBeLessThan(RUN_COST_LIMITS.refusalsPastBudget + 50);

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
});

// A crash of the app is repaired at the next start. A real daemon is SIGKILLed
// with a run in flight; its run_started then had no end, forever. Started again, the daemon
// writes one run_abandoned entry for it ("the app stopped"), the chain still verifies, and a
// further start writes nothing more.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuditRun } from "../electron/host/audit/audit-query.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

describe.skipIf(!fx)("a run in flight when the app is killed", () => {
  it("is written off as run_abandoned at the next start, once, and verify still passes", async () => {
    const home = makeHome("cm-abandon-");
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "crash-victim", version: "1" });
    expect((await shim.run("print('done')")).stdout).toBe("done\n");
    const inFlight = shim.run("import time\ntime.sleep(60)", { timeout_s: 60 });
    inFlight.catch(() => undefined);
    await until(
      () => auditEntries(home, "run_started").length === 2,
      "the second run to have started",
    );
    await daemon.kill();
    await inFlight.catch(() => undefined);
    await shim.close();
    const started = auditEntries(home, "run_started");
    const finished = auditEntries(home, "run_finished").map((e) => e.runId);
    const open = started.filter((e) => !finished.includes(e.runId));
    expect(open).toHaveLength(1);

    const again = await startDaemon(home);
    expect(again.stderr()).toContain("1 run(s) in progress when the app stopped marked abandoned");
    const abandoned = auditEntries(home, "run_abandoned");
    expect(abandoned).toEqual([
      expect.objectContaining({
        runId: open[0]!.runId,
        client: "crash-victim",
        reason: "the app stopped",
        startedSeq: open[0]!.seq,
      }),
    ]);
    // The Audit page's run detail reads it (it said "Still running" forever before).
    const detail = await getAuditRun(path.join(home, "audit"), open[0]!.runId);
    expect(detail?.finished).toBeNull();
    expect(detail?.abandoned).toMatchObject({ reason: "the app stopped" });
    await again.stop();

    // Written once: the next start finds the run ended.
    const third = await startDaemon(home);
    await third.stop();
    expect(auditEntries(home, "run_abandoned")).toHaveLength(1);
    const verify = await runCli(home, ["audit", "verify"]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 120_000);
});

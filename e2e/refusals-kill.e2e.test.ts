// Knocking on the local socket with a wrong token past AUTH_REFUSALS_PER_MINUTE, then
// the app is killed (SIGKILL, as in a crash), or stopped. Only the first refusals a minute are
// logged one by one; the rest were counted only in memory, told in the reason of the next
// refusal logged, which never came once the knocking stopped: the kill, or the stop, lost the
// count, and the log showed 30 knocks where there were more. Now the count is written at the
// first refusal left out, then at most once a window, and at the stop. A real `codemode daemon`
// (no Docker needed), real wrong-token handshakes, a real SIGKILL, the log read after a restart.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../shared/audit-entry.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  makeHome,
  readAudit,
  runCli,
  startDaemon,
} from "../test-support/daemon.js";
import { authenticate } from "../test-support/local-access.js";
import { until } from "../test-support/wait.js";
import { AUTH_REFUSALS_PER_MINUTE } from "../electron/host/audit/flood/refusal-limiter.js";

const LIMIT = AUTH_REFUSALS_PER_MINUTE;
/** Past the limit by this many, on the second run. */
const OVER = 25;
const SUFFIX = " more refused before, not logged one by one)";

/** The refusals an entry stands for: itself (and the count in its reason), or a count entry. */
function refusalsIn(entry: AuditEntry): number {
  if (entry.kind === "auth_refusals_not_logged") return entry.count;
  if (entry.kind !== "auth_refused") return 0;
  const at = entry.reason.indexOf(" (and ");
  if (at < 0 || !entry.reason.endsWith(SUFFIX)) return 1;
  return 1 + Number(entry.reason.slice(at + " (and ".length, -SUFFIX.length));
}

const onRecord = (home: string) => readAudit(home).reduce((sum, e) => sum + refusalsIn(e), 0);

beforeAll(() => assertHostBuilt());

afterAll(async () => {
  await cleanUpHosts();
});

describe("refusals left out of the log, then the app is killed or stopped", () => {
  it("are all on the record: the kill loses none of a burst, the stop writes the rest", async () => {
    const home = makeHome("codemode-refusals-kill-");
    // No engine here: nothing of Docker's is left behind by the kill.
    const env = { DOCKER_HOST: `unix://${path.join(home, "no-docker.sock")}` };
    const socketPath = path.join(home, "run", "codemode.sock");
    const knock = async () => {
      const { socket, reply } = await authenticate(socketPath, "0".repeat(64));
      socket.destroy();
      expect(reply).toEqual({ kind: "line", line: "ERR bad token" });
    };

    // A burst one past the rate, then silence, then a kill: the one left out is already counted.
    const daemon = await startDaemon(home, { env });
    for (let i = 0; i < LIMIT + 1; i++) await knock();
    await until(
      () =>
        auditEntries(home, "auth_refusals_not_logged").length === 1 &&
        auditEntries(home, "auth_refused").length === LIMIT,
      "the refusals logged and the count of the one left out to be written",
    );
    expect((await daemon.kill()).signal).toBe("SIGKILL");
    expect(auditEntries(home, "auth_refusals_not_logged")).toMatchObject([
      { count: 1, transports: ["socket"] },
    ]);
    expect(onRecord(home)).toBe(LIMIT + 1);

    // Restarted on the same home: a longer burst, then a clean stop writes what is left.
    const again = await startDaemon(home, { env });
    for (let i = 0; i < LIMIT + OVER; i++) await knock();
    await until(
      () => auditEntries(home, "auth_refused").length === 2 * LIMIT,
      "the second run's refusals logged one by one",
    );
    expect((await again.stop()).code).toBe(0);
    expect(auditEntries(home, "auth_refused")).toHaveLength(2 * LIMIT);
    expect(onRecord(home)).toBe(2 * LIMIT + 1 + OVER);

    const verify = await runCli(home, ["audit", "verify"]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const tail = await runCli(home, ["audit", "tail", "--no-follow"]);
    expect(tail.stdout).toContain("refused connections not logged one by one (socket)");
  }, 120_000);
});

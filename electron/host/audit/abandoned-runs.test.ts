import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../../../test-support/audit-fixtures.js";
import { findAbandonedRuns, AUDIT_ABANDONED_SCAN_WINDOW_MS } from "./abandoned-runs.js";
import { AuditLog } from "./audit-log.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function started(runId: string) {
  return {
    kind: "run_started" as const,
    runId,
    client: "claude",
    code: "print(1)",
    codeBytes: 8,
    codeHash: "a".repeat(64),
  };
}

function finished(runId: string) {
  return {
    kind: "run_finished" as const,
    runId,
    client: "claude",
    durationMs: 1,
    calls: 0,
    exitCode: 0,
    stopped: null,
    timedOut: false,
    truncated: false,
    error: null,
    stdoutBytes: 0,
    stderrBytes: 0,
  };
}

describe("findAbandonedRuns", () => {
  it("finds starts with no end inside the window, not ended or already written-off ones, nor older ones", async () => {
    const { dir, remove } = await makeTempDir();
    cleanups.push(remove);
    let now = Date.parse("2026-01-01T00:00:00Z");
    const log = await AuditLog.open({ dir, now: () => new Date(now) });
    await log.append(started("too-old"));
    now += AUDIT_ABANDONED_SCAN_WINDOW_MS + 60_000;
    await log.append(started("ended"));
    await log.append(started("open"));
    await log.append(started("written-off"));
    await log.append({
      kind: "run_abandoned",
      runId: "written-off",
      client: "claude",
      reason: "the app stopped",
      startedSeq: 4,
    });
    await log.append(finished("ended"));
    await log.close();
    const found = await findAbandonedRuns(dir);
    expect(found).toEqual([
      {
        kind: "run_abandoned",
        runId: "open",
        client: "claude",
        reason: "the app stopped",
        startedSeq: 3,
      },
    ]);
    expect(await findAbandonedRuns(dir, { maxEntries: 1 })).toEqual([]);
  });
});

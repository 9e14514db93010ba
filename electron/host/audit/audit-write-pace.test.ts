import { describe, expect, it } from "vitest";
import { allLines, callInput, oneOfEachKind } from "../../../test-support/audit-fixtures.js";
import { until } from "../../../test-support/wait.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";
import { AuditLog } from "./audit-log.js";
import { AUDIT_LAZY_HOLD_MS, AuditWritePace, takeBatch } from "./audit-write-pace.js";
import { HostAudit } from "./host-audit.js";

let dir: string;
useAuditDir((made) => (dir = made));

/** Lets every callback now due run (timers of 0 ms, immediates, microtasks), several times. */
async function turns(count = 5): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** An interval no test waits out: a write it holds back is let go only by hurry or flush. */
const LONG_MS = 600_000;

describe("AuditWritePace", () => {
  it("lets a first write start at once, holds the next back for the interval, and hurry lets it go", async () => {
    const pace = new AuditWritePace(LONG_MS);
    let first = false;
    void pace.due().then(() => (first = true));
    await turns();
    expect(first).toBe(true);

    pace.started();
    let second = false;
    void pace.due().then(() => (second = true));
    await turns();
    expect(second).toBe(false);
    pace.hurry();
    await turns();
    expect(second).toBe(true);

    // Hurried until the queue is empty: the writes after it do not wait either.
    pace.started();
    let third = false;
    void pace.due().then(() => (third = true));
    await turns();
    expect(third).toBe(true);

    // Once settled, a write right after another waits again.
    pace.settled();
    pace.started();
    let fourth = false;
    void pace.due().then(() => (fourth = true));
    await turns();
    expect(fourth).toBe(false);
    pace.hurry();
    await turns();
    expect(fourth).toBe(true);
  });

  it("an interval of 0 never holds a write back", async () => {
    const pace = new AuditWritePace(0);
    pace.started();
    let due = false;
    void pace.due().then(() => (due = true));
    await turns();
    expect(due).toBe(true);
  });

  it("takes entries in order, as many as fit the batch's bytes", () => {
    const queue = [{ bodyJson: "a" }, { bodyJson: "b".repeat(2 * 1024 * 1024) }, { bodyJson: "c" }];
    expect(takeBatch(queue).map((p) => p.bodyJson[0])).toEqual(["a", "b"]);
    expect(takeBatch(queue).map((p) => p.bodyJson[0])).toEqual(["c"]);
    expect(queue).toEqual([]);
  });
});

describe("AuditLog write pacing", () => {
  it("writes entries that keep coming together, once the interval ends or someone waits", async () => {
    const log = await AuditLog.open({ dir, syncMinIntervalMs: LONG_MS });
    try {
      // A first entry after a quiet spell is written at once.
      await log.append(callInput(0));
      const writes = log.stats.writes;
      let durable = 0;
      const next = [1, 2, 3].map((i) => log.append(callInput(i)).then(() => (durable += 1)));
      await turns(20);
      // Right after a write, the next waits for the interval: nothing of it is on disk yet.
      expect(durable).toBe(0);
      expect(log.stats.writes).toBe(writes);
      // Someone waits for them: written now, all three in one write and one sync.
      log.flush();
      await Promise.all(next);
      expect(log.stats.writes).toBe(writes + 1);
      expect(log.stats.entries).toBe(4);
    } finally {
      await log.close();
    }
  });

  it("close writes what is held back for the interval", async () => {
    const log = await AuditLog.open({ dir, syncMinIntervalMs: LONG_MS });
    await log.append(callInput(0));
    const held = log.append(callInput(1));
    await log.close();
    expect((await held).seq).toBe(2);
  });

  it("HostAudit.durable has what is held back written at once (a run's answer waits on it)", async () => {
    const log = await AuditLog.open({ dir, syncMinIntervalMs: LONG_MS });
    const audit = new HostAudit(log, { probeMs: 60_000 });
    try {
      audit.record(callInput(0));
      await audit.durable();
      audit.record(callInput(1));
      audit.record(callInput(2));
      await audit.durable();
      expect(log.lastSeq).toBe(3);
    } finally {
      audit.stop();
      await log.close();
    }
  });
});

describe("a run's start waits for company (lazy entries)", () => {
  const kind = (wanted: string): AuditEntryInput =>
    oneOfEachKind().find((entry) => entry.kind === wanted)!;
  const kinds = async (): Promise<string[]> =>
    (await allLines(dir)).map((line) => (JSON.parse(line) as { kind: string }).kind);

  it("a short run's start and end reach the disk in the one durable write its answer waits for", async () => {
    const log = await AuditLog.open({ dir });
    const audit = new HostAudit(log, { probeMs: 60_000 });
    try {
      audit.record(kind("run_started"));
      await turns(20);
      // Not written on its own: nobody waits for it yet.
      expect(log.stats.writes).toBe(0);
      audit.record(kind("run_finished"));
      // What HostRuns does before the client hears of the run: both are on disk then, synced
      // by one write.
      await audit.durable();
      expect(await kinds()).toEqual(["run_started", "run_finished"]);
      expect(log.stats).toEqual({ entries: 2, writes: 1, syncs: 1 });
      expect((await log.verify()).ok).toBe(true);
    } finally {
      audit.stop();
      await log.close();
    }
  });

  it("a run still going has its start written within AUDIT_LAZY_HOLD_MS, or with the next entry", async () => {
    expect(AUDIT_LAZY_HOLD_MS).toBe(50);
    const log = await AuditLog.open({ dir });
    const audit = new HostAudit(log, { probeMs: 60_000 });
    try {
      audit.record(kind("run_started"));
      await until(async () => (await kinds()).length === 1, "the start written by itself");
      audit.record(kind("run_started"));
      // Any other entry (a call's) starts a write that carries the held start along.
      audit.record(callInput(0, { runId: "r1" }));
      await until(async () => (await kinds()).length === 3, "the start written with the call");
      expect(await kinds()).toEqual(["run_started", "run_started", "call"]);
    } finally {
      audit.stop();
      await log.close();
    }
  });

  it("close writes a held start", async () => {
    const log = await AuditLog.open({ dir });
    const held = log.append(kind("run_started"), true);
    await log.close();
    expect((await held).seq).toBe(1);
  });
});

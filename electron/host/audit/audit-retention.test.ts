import { readFile, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import { allLines, callInput, logFiles } from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

const DAY = 24 * 60 * 60 * 1000;

let dir: string;
useAuditDir((made) => (dir = made));

/** A clock the test moves by hand. */
function manualClock(start: number): { now: () => Date; set: (ms: number) => void } {
  let ms = start;
  return { now: () => new Date(ms), set: (value) => (ms = value) };
}

describe("audit retention by age", () => {
  it("deletes files past retention at open, and verify says where the log now starts", async () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    const clock = manualClock(start);
    const log = await AuditLog.open({ dir, maxFileBytes: 2048, now: clock.now });
    for (let i = 0; i < 30; i += 1) await log.append(callInput(i));
    clock.set(start + 20 * DAY);
    for (let i = 30; i < 60; i += 1) await log.append(callInput(i));
    await log.close();
    const before = await logFiles(dir);

    clock.set(start + 35 * DAY);
    const reopened = await AuditLog.open({ dir, maxFileBytes: 2048, now: clock.now });
    const removed = reopened.recovery.removedByRetention;
    expect(removed.length).toBeGreaterThan(0);
    const remaining = await logFiles(dir);
    expect(remaining).toEqual(before.filter((name) => !removed.includes(name)));
    // A file goes when its newest entry is past retention; the file that spans the clock
    // jump keeps its older entries, and everything written since the jump is still there.
    const cutoff = start + 5 * DAY;
    const seqs = (await allLines(dir)).map((line) => (JSON.parse(line) as AuditEntry).seq);
    expect(seqs).toEqual(expect.arrayContaining(Array.from({ length: 30 }, (_, i) => 31 + i)));
    for (const name of removed) {
      const text = await readFile(path.join(dir, name), "utf8").catch(() => null);
      expect(text).toBeNull();
    }
    const firstKept = (await readFile(path.join(dir, remaining[0] ?? ""), "utf8"))
      .trim()
      .split("\n");
    expect(Date.parse((JSON.parse(firstKept.at(-1) ?? "") as AuditEntry).ts)).toBeGreaterThan(
      cutoff,
    );
    const next = await reopened.append(callInput(60));
    await reopened.close();
    expect(next.seq).toBe(61);

    const result = await verifyAudit(dir);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.firstSeq).toBeGreaterThan(1);
    expect(result.note).toContain(
      `Starts at seq ${result.firstSeq} (older entries removed by retention)`,
    );
  });

  it("applies retention at each rotation too, and keeps its own .torn files no longer", async () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    const clock = manualClock(start);
    const log = await AuditLog.open({ dir, maxFileBytes: 2048, retentionDays: 2, now: clock.now });
    for (let i = 0; i < 20; i += 1) await log.append(callInput(i));
    const oldTorn = path.join(dir, "audit-20251201-000000-000000000001.jsonl.10.torn");
    await writeFile(oldTorn, "x");
    await utimes(oldTorn, new Date(start - 10 * DAY), new Date(start - 10 * DAY));
    const oldFiles = await logFiles(dir);
    clock.set(start + 3 * DAY);
    for (let i = 20; i < 40; i += 1) await log.append(callInput(i));
    await log.close();

    const now = await logFiles(dir);
    // Every file that held only entries from before the jump is gone; what was written since
    // is all there.
    const kept = now.filter((name) => oldFiles.includes(name));
    expect(kept.length).toBeLessThanOrEqual(1);
    for (const name of kept) {
      const lines = (await readFile(path.join(dir, name), "utf8")).trim().split("\n");
      expect(Date.parse((JSON.parse(lines.at(-1) ?? "") as AuditEntry).ts)).toBe(start + 3 * DAY);
    }
    const seqs = (await allLines(dir)).map((line) => (JSON.parse(line) as AuditEntry).seq);
    expect(seqs).toEqual(expect.arrayContaining(Array.from({ length: 20 }, (_, i) => 21 + i)));
    expect((await readdir(dir)).some((name) => name.endsWith(".torn"))).toBe(false);
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, lastSeq: 40 });
  });
});

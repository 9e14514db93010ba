// A hundred thousand entries written through the real writer, then queried: the scale check of
// audit-query.test.ts, in the integration project because writing them takes seconds.
import { describe, expect, it } from "vitest";
import { AuditLog } from "./audit-log.js";
import { getAuditRun, queryAudit } from "./audit-query.js";
import { verifyAudit } from "./audit-verify.js";
import { makeTempDir, mixedInput } from "../../../test-support/audit-fixtures.js";

const START = Date.parse("2026-02-01T00:00:00Z");

/** A clock that moves one second per reading, so every entry has its own time. */
function tickingClock(): () => Date {
  let ms = START;
  return () => new Date((ms += 1000));
}

describe("queryAudit on 100,000 entries", () => {
  it("answers first pages, deep pages and full scans", async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const log = await AuditLog.open({ dir, now: tickingClock(), fsync: false });
      const started = performance.now();
      for (let chunk = 0; chunk < 10; chunk += 1) {
        await Promise.all(
          Array.from({ length: 10_000 }, (_, i) => log.append(mixedInput(chunk * 10_000 + i))),
        );
      }
      await log.close();
      const writeMs = performance.now() - started;

      const timed = async (label: string, run: () => Promise<number>): Promise<string> => {
        const t = performance.now();
        const count = await run();
        return `${label}: ${count} in ${Math.round(performance.now() - t)} ms`;
      };
      const report = [
        `wrote 100,000 entries in ${Math.round(writeMs)} ms (no fsync)`,
        await timed(
          "first page of 100",
          async () => (await queryAudit(dir, {}, { limit: 100 })).entries.length,
        ),
        await timed("page before seq 50,000", async () => {
          const page = await queryAudit(dir, {}, { limit: 100, before: 50_000 });
          expect(page.entries[0]?.seq).toBe(49_999);
          return page.entries.length;
        }),
        await timed("text matching one entry (full scan)", async () => {
          const page = await queryAudit(dir, { text: 'City 99999"' });
          expect(page.entries.map((entry) => entry.seq)).toEqual([100_000]);
          return page.entries.length;
        }),
        await timed("text matching nothing (full scan)", async () => {
          const page = await queryAudit(dir, { text: "no such text anywhere" });
          return page.entries.length;
        }),
        await timed("client + decision, 1000 newest", async () => {
          const page = await queryAudit(
            dir,
            { client: "claude", decision: "failed" },
            { limit: 1000 },
          );
          return page.entries.length;
        }),
        await timed("verify", async () => {
          const result = await verifyAudit(dir);
          expect(result.ok).toBe(true);
          return result.entries;
        }),
        await timed("run of seq ~1,000 (getRun scans back)", async () => {
          const run = await getAuditRun(dir, "run-100");
          expect(run?.started?.seq).toBe(1001);
          return run?.calls.length ?? 0;
        }),
      ];
      console.log(report.join("\n"));
    } finally {
      await remove();
    }
  });
});

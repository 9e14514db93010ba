import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import type { AuditFilter } from "../../../shared/audit-query-types.js";
import { AuditLog } from "./audit-log.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { entryText } from "../../../shared/audit-filter.js";
import { getAuditRun, queryAudit, AUDIT_QUERY_DEFAULT_LIMIT } from "./audit-query.js";
import { AuditIndex } from "./audit-index.js";
import { callInput, makeTempDir, mixedInput } from "../../../test-support/audit-fixtures.js";

const START = Date.parse("2026-02-01T00:00:00Z");

/** A clock that moves one second per reading, so every entry has its own time. */
function tickingClock(): () => Date {
  let ms = START;
  return () => new Date((ms += 1000));
}

async function collectAll(
  dir: string,
  filter: AuditFilter,
  limit: number,
  index: AuditIndex | null,
): Promise<number[]> {
  const seqs: number[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await queryAudit(dir, filter, { limit, before }, index);
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    seqs.push(...page.entries.map((entry) => entry.seq));
    if (page.nextBefore === null) return seqs;
    expect(page.entries).toHaveLength(limit);
    before = page.nextBefore;
  }
}

// The same answers whether the log is scanned or read through its index.
describe.each(["scan", "index"] as const)("queryAudit on ~2,000 entries (%s)", (mode) => {
  let dir: string;
  let remove: () => Promise<void>;
  let all: AuditEntry[];
  let index: AuditIndex | null = null;

  beforeAll(async () => {
    ({ dir, remove } = await makeTempDir());
    const log = await AuditLog.open({
      dir,
      now: tickingClock(),
      fsync: false,
      maxFileBytes: 64 * 1024,
    });
    all = await Promise.all(Array.from({ length: 2000 }, (_, i) => log.append(mixedInput(i))));
    await log.close();
    if (mode === "index") {
      index = new AuditIndex(dir, (error) => {
        throw error;
      });
    }
  });
  afterAll(async () => {
    await remove();
  });

  /** The expected answer, worked out the slow way from everything appended. */
  function expected(keep: (entry: AuditEntry & Record<string, unknown>) => boolean): number[] {
    return all
      .filter((entry) => keep(entry as AuditEntry & Record<string, unknown>))
      .map((entry) => entry.seq)
      .reverse();
  }

  async function query(filter: AuditFilter): Promise<number[]> {
    return (await queryAudit(dir, filter, { limit: 1000 }, index)).entries.map(
      (entry) => entry.seq,
    );
  }

  it("returns the newest entries first without a filter", async () => {
    const page = await queryAudit(dir, {}, { limit: 10 }, index);
    expect(page.entries.map((entry) => entry.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => 2000 - i),
    );
    expect(page.entries[0]).toEqual(all[1999]);
    expect(page.nextBefore).toBe(1991);
  });

  it("filters by one kind and by several", async () => {
    expect(await query({ kinds: ["taint_set"] })).toEqual(expected((e) => e.kind === "taint_set"));
    expect(await query({ kinds: ["run_started", "config_changed"] })).toEqual(
      expected((e) => e.kind === "run_started" || e.kind === "config_changed"),
    );
    expect(await query({ kinds: [] })).toHaveLength(1000);
  });

  it("filters by client, server, tool, decision and run", async () => {
    expect(await query({ client: "cursor" })).toEqual(expected((e) => e.client === "cursor"));
    expect(await query({ server: "mail" })).toEqual(
      expected(
        (e) => e.server === "mail" || (e.kind === "config_changed" && e.servers.includes("mail")),
      ),
    );
    const byServerTool = await query({ tool: "tool_3" });
    expect(byServerTool).toEqual(
      expected(
        (e) =>
          (e.kind === "call" && e.serverTool === "tool_3") ||
          (e.kind === "taint_set" && e.tool === "tool_3"),
      ),
    );
    expect(await query({ tool: "files__tool_3" })).toEqual(
      expected((e) => e.kind === "call" && e.tool === "files__tool_3"),
    );
    expect(await query({ decision: "refused" })).toEqual(
      expected((e) => e.kind === "call" && e.decision === "refused"),
    );
    expect(await query({ runId: "run-42" })).toEqual(expected((e) => e.runId === "run-42"));
    expect(await query({ client: "nobody" })).toEqual([]);
  });

  it("filters by time, from inclusive and to exclusive", async () => {
    const from = all[500]?.ts ?? "";
    const to = all[600]?.ts ?? "";
    const seqs = await query({ from, to });
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => 600 - i));
    expect(await query({ from: "2030-01-01T00:00:00Z" })).toEqual([]);
    await expect(queryAudit(dir, { from: "yesterday" }, {}, index)).rejects.toThrow(RangeError);
  });

  it("matches text case-insensitively in any of the entry's texts, quotes and all", async () => {
    expect(await query({ text: "nEEDLE in a HAYSTACK" })).toEqual(
      expected((e) => e.kind === "call" && (e.args ?? "").includes("Needle in a haystack")),
    );
    // In the line the quote after "City 12" is escaped; the user types it as they see it.
    expect(await query({ text: 'city 12"' })).toEqual(
      expected((e) => e.kind === "call" && (e.args ?? "").includes('"City 12"')),
    );
    expect(await query({ text: 'city 12"' })).toHaveLength(1);
  });

  it("combines filters", async () => {
    const from = all[1000]?.ts ?? "";
    expect(
      await query({ client: "claude", decision: "failed", kinds: ["call"], from, text: "weather" }),
    ).toEqual(
      expected(
        (e) =>
          e.kind === "call" &&
          e.client === "claude" &&
          e.decision === "failed" &&
          e.seq >= 1001 &&
          entryText(e).includes("weather"),
      ),
    );
  });

  it("pages newest first through everything that matches", async () => {
    expect(await collectAll(dir, {}, 137, index)).toEqual(expected(() => true));
    expect(await collectAll(dir, { client: "vscode" }, 50, index)).toEqual(
      expected((e) => e.client === "vscode"),
    );
    const page = await queryAudit(dir, {}, { limit: 5, before: 3 }, index);
    expect(page).toEqual({ entries: [all[1], all[0]], nextBefore: null });
  });

  it("caps the page size", async () => {
    const page = await queryAudit(dir, {}, { limit: 1_000_000 }, index);
    expect(page.entries).toHaveLength(AUDIT_LIMITS.queryMaxLimit);
    expect((await queryAudit(dir, {}, {}, index)).entries).toHaveLength(AUDIT_QUERY_DEFAULT_LIMIT);
  });
});

describe("getAuditRun", () => {
  it("returns a run's start, its calls in order and its end, and null for an unknown run", async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const log = await AuditLog.open({ dir, fsync: false });
      const started = (runId: string) =>
        ({
          kind: "run_started",
          runId,
          client: "claude",
          code: "x",
          codeBytes: 1,
          codeHash: "0".repeat(64),
        }) as const;
      await log.append(started("other"));
      await log.append(started("mine"));
      for (let i = 0; i < 6; i += 1) {
        await log.append(callInput(i, { runId: i % 2 === 0 ? "mine" : "other", tool: `t${i}` }));
      }
      await log.append({
        kind: "run_finished",
        runId: "mine",
        client: "claude",
        durationMs: 10,
        calls: 3,
        exitCode: 0,
        stopped: null,
        timedOut: false,
        truncated: false,
        error: null,
        stdoutBytes: 0,
        stderrBytes: 0,
      });
      await log.append(callInput(7, { runId: "other", tool: "t7" }));

      const mine = await log.getRun("mine");
      expect(mine?.started?.seq).toBe(2);
      expect(mine?.calls.map((call) => call.tool)).toEqual(["t0", "t2", "t4"]);
      expect(mine?.finished?.calls).toBe(3);

      const other = await getAuditRun(dir, "other");
      expect(other?.calls.map((call) => call.tool)).toEqual(["t1", "t3", "t5", "t7"]);
      expect(other?.finished).toBeNull();
      expect(await getAuditRun(dir, "nope")).toBeNull();
      await log.close();
    } finally {
      await remove();
    }
  });
});

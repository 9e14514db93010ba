import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuditFilter } from "../../../shared/audit-query-types.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { logFiles, makeTempDir, mixedInput } from "../../../test-support/audit-fixtures.js";
import { AuditIndex } from "./audit-index.js";
import { DERIVATION, INDEX_DIR } from "./audit-index-store.js";
import { AuditLog } from "./audit-log.js";
import { getAuditRun, queryAudit } from "./audit-query.js";

const ENTRIES = 600;
const FILE_BYTES = 32 * 1024;

/** What a query answers, through `index` or by scanning the log. */
async function seqs(dir: string, filter: AuditFilter, index: AuditIndex | null): Promise<number[]> {
  const page = await queryAudit(dir, filter, { limit: AUDIT_LIMITS.queryMaxLimit }, index);
  return page.entries.map((entry) => entry.seq);
}

const FILTERS: AuditFilter[] = [
  {},
  { client: "cursor" },
  { server: "mail", decision: "refused" },
  { tool: "tool_3" },
  { runId: "run-7" },
  { kinds: ["run_started", "config_changed"] },
  { text: "needle IN a" },
  { text: "no such text" },
];

describe("AuditIndex", () => {
  let dir: string;
  let remove: () => Promise<void>;
  const errors: unknown[] = [];

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
    errors.length = 0;
    const log = await AuditLog.open({ dir, fsync: false, maxFileBytes: FILE_BYTES });
    await Promise.all(Array.from({ length: ENTRIES }, (_, i) => log.append(mixedInput(i))));
    await log.close();
  });
  afterEach(async () => {
    await remove();
  });

  const fresh = (): AuditIndex => new AuditIndex(dir, (error) => errors.push(error));

  async function expectSameAsScan(index: AuditIndex): Promise<void> {
    for (const filter of FILTERS) {
      expect(await seqs(dir, filter, index), JSON.stringify(filter)).toEqual(
        await seqs(dir, filter, null),
      );
    }
    expect(await getAuditRun(dir, "run-3", index)).toEqual(await getAuditRun(dir, "run-3"));
  }

  it("answers as a scan does, is saved beside the log and loaded at the next start", async () => {
    const first = fresh();
    await expectSameAsScan(first);
    expect(first.stats).toMatchObject({ loaded: 0, invalidated: 0 });
    expect(first.stats.rebuilt).toBe((await logFiles(dir)).length);
    await first.save();
    const saved = await readdir(path.join(dir, INDEX_DIR));
    expect(saved.sort()).toEqual((await logFiles(dir)).map((name) => `${name}.idx`));

    const second = fresh();
    await expectSameAsScan(second);
    expect(second.stats).toMatchObject({ loaded: saved.length, rebuilt: 0, invalidated: 0 });
    expect(errors).toEqual([]);
  });

  it("keeps up with entries appended after it was built", async () => {
    const log = await AuditLog.open({ dir, fsync: false, maxFileBytes: FILE_BYTES });
    await expectSameAsScan(log.index);
    for (let i = ENTRIES; i < ENTRIES + 150; i += 1) await log.append(mixedInput(i));
    await expectSameAsScan(log.index);
    expect((await log.query({}, { limit: 1 })).entries[0]?.seq).toBe(log.lastSeq);
    await log.close();
  });

  it("rebuilds a saved index that is corrupt, never trusting it", async () => {
    const first = fresh();
    await first.refresh();
    await first.save();
    const names = await readdir(path.join(dir, INDEX_DIR));
    const corrupt = path.join(dir, INDEX_DIR, names[0] ?? "");
    const bytes = await readFile(corrupt);
    // One flipped byte in the body: the entries it points at would be wrong.
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
    await writeFile(corrupt, bytes);
    await writeFile(path.join(dir, INDEX_DIR, names[1] ?? ""), "not an index");

    const second = fresh();
    await expectSameAsScan(second);
    expect(second.stats).toMatchObject({ loaded: names.length - 2, rebuilt: 2 });
  });

  it("rebuilds a saved index made by an app that derived its keys or kind codes differently", async () => {
    const first = fresh();
    await first.refresh();
    await first.save();
    const names = await readdir(path.join(dir, INDEX_DIR));
    const older = path.join(dir, INDEX_DIR, names[0] ?? "");
    const bytes = await readFile(older);
    const newline = bytes.indexOf(10);
    const header = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as Record<
      string,
      unknown
    >;
    expect(header.derivation).toBe(DERIVATION);
    // Body and its hash intact, the last line still agrees: only the derivation says it is stale,
    // as after a downgrade then upgrade across a change of AUDIT_KINDS or entryText.
    header.derivation = "an older app's derivation";
    await writeFile(
      older,
      Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), bytes.subarray(newline + 1)]),
    );

    const second = fresh();
    await expectSameAsScan(second);
    expect(second.stats).toMatchObject({ loaded: names.length - 1, rebuilt: 1 });
  });

  it("rebuilds the index of a log file that no longer ends where the index does", async () => {
    const first = fresh();
    await first.refresh();
    await first.save();
    const newest = path.join(dir, (await logFiles(dir)).at(-1) ?? "");
    const lines = (await readFile(newest, "utf8")).split("\n");
    // Same length, other bytes: the tail's hash gives it away.
    const last = lines.at(-2) ?? "";
    const at = last.indexOf('"prev":"') + '"prev":"'.length;
    lines[lines.length - 2] =
      `${last.slice(0, at)}${last[at] === "a" ? "b" : "a"}${last.slice(at + 1)}`;
    await writeFile(newest, lines.join("\n"));

    const second = fresh();
    await second.refresh();
    expect(second.stats.rebuilt).toBe(1);
  });

  it("falls back to the log when an entry is not where the index says", async () => {
    const index = fresh();
    await index.refresh();
    const oldest = path.join(dir, (await logFiles(dir))[0] ?? "");
    const text = await readFile(oldest, "utf8");
    // An edit in the middle that shifts every later line: the index's offsets are now wrong,
    // though the file's tail is unchanged.
    await writeFile(oldest, text.replace('"client":"cursor"', '"client":"cursor-edited"'));
    expect(await seqs(dir, { runId: "run-3" }, index)).toEqual(
      await seqs(dir, { runId: "run-3" }, null),
    );
    expect(index.stats.invalidated).toBe(1);
    await expectSameAsScan(index);
  });

  it("builds again when its folder is removed, and drops the index of a removed log file", async () => {
    const first = fresh();
    await first.refresh();
    await first.save();
    await rm(path.join(dir, INDEX_DIR), { recursive: true });
    const second = fresh();
    await expectSameAsScan(second);
    expect(second.stats.loaded).toBe(0);
    await second.save();

    const oldest = (await logFiles(dir))[0] ?? "";
    await rm(path.join(dir, oldest));
    await second.refresh();
    expect(await readdir(path.join(dir, INDEX_DIR))).not.toContain(`${oldest}.idx`);
    await expectSameAsScan(second);
  });
});

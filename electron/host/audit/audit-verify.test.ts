import { readFile, readdir, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import type { AuditVerifyProgress } from "../../../shared/audit-query-types.js";
import { callInput } from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

/** An asymmetric matcher, typed so that it can sit in an object literal. */
const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern);

let dir: string;
useAuditDir((made) => (dir = made));

async function writeLog(count: number, maxFileBytes?: number): Promise<string[]> {
  const log = await AuditLog.open({ dir, maxFileBytes, fsync: false });
  for (let i = 0; i < count; i += 1) await log.append(callInput(i));
  await log.close();
  return (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
}

/** Rewrites one file's lines (without the final newline's empty element). */
async function editLines(name: string, edit: (lines: string[]) => string[]): Promise<void> {
  const file = path.join(dir, name);
  const lines = (await readFile(file, "utf8")).split("\n").slice(0, -1);
  await writeFile(
    file,
    edit(lines)
      .map((line) => `${line}\n`)
      .join(""),
  );
}

describe("verifyAudit", () => {
  it("passes an untouched log and an empty one", async () => {
    expect(await verifyAudit(dir)).toEqual({
      ok: true,
      entries: 0,
      firstSeq: null,
      lastSeq: null,
      head: null,
      note: null,
    });
    await writeLog(10);
    expect(await verifyAudit(dir)).toEqual({
      ok: true,
      entries: 10,
      firstSeq: 1,
      lastSeq: 10,
      head: { seq: 10, hash: matching(/^[0-9a-f]{64}$/) },
      note: null,
    });
  });

  it("names an edited line as the first bad entry", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) =>
      lines.map((line, i) => (i === 4 ? line.replace('"client":"', '"client":"x') : line)),
    );
    expect(await verifyAudit(dir)).toEqual({
      ok: false,
      entries: 4,
      firstBad: {
        file: name,
        line: 5,
        seq: 5,
        problem: matching(/changed after it was written/),
      },
      note: null,
    });
  });

  it("names the entry after a removed line", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) => lines.filter((_, i) => i !== 3));
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 3,
      firstBad: {
        file: name,
        line: 4,
        seq: 5,
        problem: "expected seq 4 but found 5: 1 entry missing or out of order",
      },
    });
  });

  it("names the first of two swapped lines", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) => {
      const swapped = [...lines];
      [swapped[6], swapped[7]] = [lines[7] ?? "", lines[6] ?? ""];
      return swapped;
    });
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 6,
      firstBad: { file: name, line: 7, seq: 8, problem: matching(/expected seq 7/) },
    });
  });

  it("names an entry whose seq was changed", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) =>
      lines.map((line, i) => (i === 2 ? line.replace('{"seq":3,', '{"seq":33,') : line)),
    );
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 2,
      firstBad: { file: name, line: 3, seq: 33, problem: matching(/expected seq 3/) },
    });
  });

  it("names an entry whose prev was rewritten", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) =>
      lines.map((line, i) =>
        i === 5 ? line.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${"b".repeat(64)}"`) : line,
      ),
    );
    // The line's own hash changed too, so the next one no longer chains to it: it is the
    // line with the wrong prev that is named, not the one before it.
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 5,
      firstBad: { line: 6, seq: 6, problem: matching(/prev does not match/) },
    });
  });

  it("finds an edit at the end of one file through the first entry of the next", async () => {
    const names = await writeLog(30, 2048);
    expect(names.length).toBeGreaterThan(2);
    const first = names[0] ?? "";
    let lastLine = 0;
    await editLines(first, (lines) => {
      lastLine = lines.length;
      return lines.map((line, i) => (i === lines.length - 1 ? line.replace("City", "Town") : line));
    });
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: { file: first, line: lastLine, seq: lastLine },
    });
  });

  it("finds a missing file in the middle of the log", async () => {
    const names = await writeLog(30, 2048);
    await unlink(path.join(dir, names[1] ?? ""));
    const result = await verifyAudit(dir);
    expect(result).toMatchObject({
      ok: false,
      firstBad: { file: names[2], line: 1, problem: matching(/missing/) },
    });
  });

  it("fails a log whose oldest entries were cut from the start of its first file", async () => {
    const [name] = await writeLog(10);
    await editLines(name ?? "", (lines) => lines.slice(3));
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 0,
      firstBad: {
        file: name,
        line: 1,
        seq: 4,
        problem: matching(/name says it starts at seq 1 but its first entry is seq 4: 3 entries/),
      },
    });
  });

  it("fails a log whose oldest file was emptied, and one whose later file lost its start", async () => {
    const names = await writeLog(30, 2048);
    const [first, second] = names;
    await writeFile(path.join(dir, first ?? ""), "");
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      entries: 0,
      firstBad: { file: first, line: 1, seq: null, problem: matching(/holds no entries/) },
    });
    await unlink(path.join(dir, first ?? ""));
    await editLines(second ?? "", (lines) => lines.slice(1));
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: { file: second, line: 1, problem: matching(/name says it starts at seq/) },
    });
  });

  it("still passes a log whose oldest whole files were removed, as retention does", async () => {
    const names = await writeLog(30, 2048);
    await unlink(path.join(dir, names[0] ?? ""));
    const result = await verifyAudit(dir);
    expect(result).toMatchObject({ ok: true, lastSeq: 30 });
    expect(result.note).toMatch(/older entries removed by retention/);
  });

  it("fails a line that is not JSON or not an entry, and a first entry that is not genesis", async () => {
    const [name] = await writeLog(5);
    const file = path.join(dir, name ?? "");
    const original = (await readFile(file, "utf8")).split("\n").slice(0, -1);
    const variant = async (lines: string[]): Promise<void> => {
      await writeFile(file, lines.map((line) => `${line}\n`).join(""));
    };

    await variant(original.map((line, i) => (i === 1 ? line.slice(0, -1) : line)));
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: { line: 2, seq: null, problem: "not valid JSON" },
    });

    await variant(
      original.map((line, i) => (i === 1 ? line.replace('"decision":"', '"decision":"z') : line)),
    );
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: {
        line: 2,
        seq: 2,
        problem: matching(/not a valid audit entry \(decision/),
      },
    });

    await variant([(original[2] ?? "").replace('{"seq":3,', '{"seq":1,'), ...original.slice(3)]);
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: { line: 1, seq: 1, problem: matching(/genesis/) },
    });
  });

  it("fails when time goes back by more than a minute", async () => {
    const [name] = await writeLog(5);
    // Recompute nothing: the ts edit on the last line leaves every prev intact.
    await editLines(name ?? "", (lines) =>
      lines.map((line, i) =>
        i === 4 ? line.replace(/"ts":"[^"]+"/, '"ts":"2000-01-01T00:00:00.000Z"') : line,
      ),
    );
    expect(await verifyAudit(dir)).toMatchObject({
      ok: false,
      firstBad: { line: 5, seq: 5, problem: matching(/time goes back/) },
    });
  });
});

describe("verifyAudit progress", () => {
  it("reports how far it has read, ending once at every byte of every file", async () => {
    const names = await writeLog(400, 16 * 1024);
    expect(names.length).toBeGreaterThan(3);
    const seen: AuditVerifyProgress[] = [];
    const result = await verifyAudit(dir, { onProgress: (progress) => seen.push(progress) });
    expect(result.ok).toBe(true);
    let total = 0;
    for (const name of names) total += (await readFile(path.join(dir, name))).length;
    // The first chunk is reported at once; then at most every AUDIT_VERIFY_PROGRESS_MS, then the
    // end.
    expect(seen[0]).toMatchObject({ totalBytes: total, done: false });
    expect(seen.at(-1)).toEqual({ doneBytes: total, totalBytes: total, entries: 400, done: true });
    expect(seen.filter((progress) => progress.done)).toHaveLength(1);
    for (const [i, progress] of seen.entries()) {
      expect(progress.doneBytes).toBeGreaterThanOrEqual(seen[i - 1]?.doneBytes ?? 0);
    }
  });
});

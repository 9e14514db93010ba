import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { auditEntrySchema } from "../../../shared/audit-entry.js";
import { CSV_COLUMNS, csvCell, exportAudit } from "./audit-export.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import { callInput, oneOfEachKind } from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

let dir: string;
useAuditDir((made) => (dir = made));

/** Collects what is written, taking its time so that exportAudit has to wait for drain. */
function slowSink(): { out: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      setImmediate(done);
    },
  });
  return { out, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** RFC 4180, enough to read back what the export wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i += 1;
    } else cell += ch;
  }
  return rows;
}

describe("exportAudit", () => {
  it("copies the lines byte for byte as JSONL, oldest first, so the copy verifies", async () => {
    const log = await AuditLog.open({ dir, maxFileBytes: 2048, fsync: false });
    for (let i = 0; i < 30; i += 1) await log.append(callInput(i, { reason: `ünïcode ${i}` }));
    await log.close();
    const names = (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
    const original = (
      await Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8")))
    ).join("");

    const sink = slowSink();
    expect(await exportAudit(dir, "jsonl", sink.out)).toBe(30);
    expect(sink.text()).toBe(original);

    const copy = path.join(dir, "..", "copy");
    await mkdir(copy);
    await writeFile(path.join(copy, "audit-20260101-000000-000000000001.jsonl"), sink.text());
    expect(await verifyAudit(copy)).toMatchObject({ ok: true, entries: 30 });
  });

  it("exports only what the filter matches", async () => {
    const log = await AuditLog.open({ dir, fsync: false });
    for (let i = 0; i < 20; i += 1) await log.append(callInput(i));
    await log.close();
    const sink = slowSink();
    expect(await exportAudit(dir, "jsonl", sink.out, { decision: "refused" })).toBe(5);
    const seqs = sink
      .text()
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { seq: number; decision: string }).seq);
    expect(seqs).toEqual([3, 7, 11, 15, 19]);
  });

  it("writes CSV with one header, every kind flattened, and proper quoting", async () => {
    const log = await AuditLog.open({ dir, fsync: false });
    for (const input of oneOfEachKind()) await log.append(input);
    await log.append(callInput(1, { reason: 'said "no", then\nleft', decision: "refused" }));
    await log.close();

    const sink = slowSink();
    const entries = oneOfEachKind().length + 1;
    expect(await exportAudit(dir, "csv", sink.out)).toBe(entries);
    const text = sink.text();
    expect(text.startsWith("\uFEFFseq,ts,prev,kind,")).toBe(true);
    const rows = parseCsv(text.slice(1));
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(entries + 1);
    for (const row of rows) expect(row).toHaveLength(CSV_COLUMNS.length);

    const column = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const last = rows[entries] ?? [];
    expect(last[column("reason")]).toBe('said "no", then\nleft');
    expect(text).toContain('"said ""no"", then\nleft"');
    const config = rows.find((row) => row[column("kind")] === "config_changed") ?? [];
    expect(JSON.parse(config[column("servers")] ?? "")).toEqual(["weather", "files"]);
    const settings = rows.find((row) => row[column("kind")] === "settings_changed") ?? [];
    expect(JSON.parse(settings[column("changes")] ?? "")).toEqual({
      deadlineSeconds: { from: 90, to: 60 },
    });
    const finished = rows.find((row) => row[column("kind")] === "run_finished") ?? [];
    expect(finished[column("error")]).toBe("");
    expect(finished[column("timedOut")]).toBe("false");
  });

  it("defuses cells a spreadsheet would run as a formula", async () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell("+1+1")).toBe("'+1+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe(`"'\r=1"`);
    expect(csvCell("a=1")).toBe("a=1");
    // The log's own numbers are numbers, even negative ones.
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("true");

    const log = await AuditLog.open({ dir, fsync: false });
    await log.append(callInput(0, { reason: "=cmd|' /C calc'!A0", decision: "refused" }));
    await log.close();
    const sink = slowSink();
    await exportAudit(dir, "csv", sink.out);
    expect(parseCsv(sink.text().slice(1))[1]?.[CSV_COLUMNS.indexOf("reason")]).toBe(
      "'=cmd|' /C calc'!A0",
    );
  });

  it("stops with an error when its reader goes away instead of waiting for a drain", async () => {
    const log = await AuditLog.open({ dir, fsync: false });
    for (let i = 0; i < 50; i += 1) await log.append(callInput(i));
    await log.close();
    // A reader that takes nothing (a paused download), then hangs up.
    const out = new Writable({ highWaterMark: 16, write: () => undefined });
    const exporting = exportAudit(dir, "jsonl", out);
    setTimeout(() => out.destroy(), 20);
    await expect(exporting).rejects.toThrow(/destination was closed/);
  });

  it("has a CSV column for every field of every kind", () => {
    const fields = new Set(auditEntrySchema.options.flatMap((option) => Object.keys(option.shape)));
    expect(
      [...fields].filter((field) => !(CSV_COLUMNS as readonly string[]).includes(field)),
    ).toEqual([]);
    expect(new Set(CSV_COLUMNS).size).toBe(CSV_COLUMNS.length);
  });
});

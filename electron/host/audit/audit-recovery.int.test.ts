import { spawn } from "node:child_process";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import { allLines, callInput, logFiles, sha256 } from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

const here = path.dirname(fileURLToPath(import.meta.url));

let dir: string;
useAuditDir((made) => (dir = made));

describe("AuditLog.open after a crash (audit-recovery)", () => {
  it("sets a torn last line aside after a crash and continues from the last good entry", async () => {
    const log = await AuditLog.open({ dir });
    for (let i = 0; i < 5; i += 1) await log.append(callInput(i));
    await log.close();
    const [name] = await logFiles(dir);
    const file = path.join(dir, name ?? "");
    const goodSize = (await stat(file)).size;
    const torn = '{"seq":6,"ts":"2026-01-01T00:00:00.000Z","prev":"ab';
    await appendFile(file, torn);

    // Before the app starts again, verify reports the unfinished line without failing.
    const before = await verifyAudit(dir);
    expect(before).toMatchObject({ ok: true, entries: 5, lastSeq: 5 });
    expect(before.note).toMatch(/unfinished/);

    const reopened = await AuditLog.open({ dir });
    expect(reopened.recovery.tornBytes).toBe(Buffer.byteLength(torn));
    const tornFile = reopened.recovery.tornFile ?? "";
    expect(await readFile(path.join(dir, tornFile), "utf8")).toBe(torn);
    expect((await stat(file)).size).toBe(goodSize);
    const next = await reopened.append(callInput(5));
    await reopened.close();

    expect(next.seq).toBe(6);
    expect(next.prev).toBe(sha256((await allLines(dir))[4] ?? ""));
    const after = await verifyAudit(dir);
    expect(after).toMatchObject({ ok: true, entries: 6, lastSeq: 6 });
    expect(after.note).toContain(tornFile);
  });

  it("sets aside a last line that ends in a newline but does not parse", async () => {
    const log = await AuditLog.open({ dir });
    for (let i = 0; i < 3; i += 1) await log.append(callInput(i));
    await log.close();
    const [name] = await logFiles(dir);
    // What a power cut can leave: a block of zeros where the last write should be.
    await appendFile(
      path.join(dir, name ?? ""),
      Buffer.concat([Buffer.alloc(40), Buffer.from("}\n")]),
    );
    expect(await verifyAudit(dir)).toMatchObject({ ok: false, firstBad: { line: 4 } });

    const reopened = await AuditLog.open({ dir });
    expect(reopened.recovery.tornBytes).toBe(42);
    expect((await reopened.append(callInput(3))).seq).toBe(4);
    await reopened.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 4 });
  });

  it("drops an unfinished new file after a crash at rotation and chains from the file before", async () => {
    const log = await AuditLog.open({ dir, maxFileBytes: 2048 });
    for (let i = 0; i < 12; i += 1) await log.append(callInput(i));
    await log.close();
    const before = await logFiles(dir);
    const next = path.join(dir, "audit-20260101-000000-000000000013.jsonl");
    await writeFile(next, '{"seq":13,"ts":"2026-01-');

    const reopened = await AuditLog.open({ dir, maxFileBytes: 2048 });
    expect(reopened.recovery).toMatchObject({ tornBytes: 24 });
    expect(await logFiles(dir)).toEqual(before);
    expect((await reopened.append(callInput(12))).seq).toBe(13);
    await reopened.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 13 });
  });

  it("loses no acknowledged entry when the writing process is killed with SIGKILL", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(here, "..", "..", "..", "test-support", "audit-append-until-killed.ts"),
        dir,
      ],
      // tsx is resolved from the package root, whatever directory the tests run from.
      { stdio: ["ignore", "pipe", "pipe"], cwd: path.resolve(here, "..", "..", "..") },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const deadline = Date.now() + 30_000;
    while (stdout.split("\n").length < 500 && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill("SIGKILL");
    expect(await exited, stderr).toBe("SIGKILL");

    // Only whole lines: the last one may have been cut by the kill.
    const acknowledged = stdout
      .split("\n")
      .slice(0, -1)
      .map((line) => Number(line));
    expect(acknowledged.length).toBeGreaterThanOrEqual(500);
    const before = await verifyAudit(dir);
    expect(before.ok).toBe(true);

    const log = await AuditLog.open({ dir });
    const inLog = new Set(
      (await allLines(dir)).map((line) => (JSON.parse(line) as { seq: number }).seq),
    );
    for (const seq of acknowledged) expect(inLog.has(seq)).toBe(true);
    const next = await log.append(callInput(0));
    await log.close();
    expect(next.seq).toBe(Math.max(...inLog) + 1);
    const after = await verifyAudit(dir);
    expect(after).toMatchObject({ ok: true, firstSeq: 1, lastSeq: next.seq });
    console.log(
      `crash test: ${acknowledged.length} acknowledged before SIGKILL, ${inLog.size} in the log` +
        (log.recovery.tornBytes > 0 ? `, ${log.recovery.tornBytes} torn bytes set aside` : ""),
    );
  });
});

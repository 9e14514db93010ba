import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, readFile, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENESIS_PREV, type AuditEntry } from "../../../shared/audit-entry.js";
import { AuditLog } from "./audit-log.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { verifyAudit } from "./audit-verify.js";
import { callInput, makeTempDir, oneOfEachKind } from "../../../test-support/audit-fixtures.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const DAY = 24 * 60 * 60 * 1000;

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await makeTempDir());
});
afterEach(async () => {
  await remove();
});

async function logFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
}

async function allLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const name of await logFiles()) {
    const text = await readFile(path.join(dir, name), "utf8");
    lines.push(...text.split("\n").filter((line) => line !== ""));
  }
  return lines;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A clock the test moves by hand. */
function manualClock(start: number): { now: () => Date; set: (ms: number) => void } {
  let ms = start;
  return { now: () => new Date(ms), set: (value) => (ms = value) };
}

describe("AuditLog", () => {
  it("chains every entry to the line before it, from the genesis value, and verify passes", async () => {
    const log = await AuditLog.open({ dir });
    const written: AuditEntry[] = [];
    for (const input of oneOfEachKind()) written.push(await log.append(input));
    await log.close();

    expect(written.map((entry) => entry.seq)).toEqual(written.map((_, i) => i + 1));
    const lines = await allLines();
    expect(lines).toHaveLength(written.length);
    expect(written[0]?.prev).toBe(GENESIS_PREV);
    for (let i = 1; i < lines.length; i += 1) {
      expect(written[i]?.prev).toBe(sha256(lines[i - 1] ?? ""));
    }
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(written);
    expect(await verifyAudit(dir)).toEqual({
      ok: true,
      entries: written.length,
      firstSeq: 1,
      lastSeq: written.length,
      head: { seq: written.length, hash: sha256(lines.at(-1) ?? "") },
      note: null,
    });
  });

  it("creates its directory and files readable by the user only", async () => {
    const log = await AuditLog.open({ dir });
    await log.append(callInput(0));
    await log.close();
    if (process.platform === "win32") return;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [name] = await logFiles();
    expect((await stat(path.join(dir, name ?? ""))).mode & 0o777).toBe(0o600);
  });

  it("continues the chain after a reopen", async () => {
    const first = await AuditLog.open({ dir });
    await first.append(callInput(0));
    await first.append(callInput(1));
    await first.close();
    const second = await AuditLog.open({ dir });
    expect(second.lastSeq).toBe(2);
    const entry = await second.append(callInput(2));
    await second.close();
    expect(entry.seq).toBe(3);
    expect(entry.prev).toBe(sha256((await allLines())[1] ?? ""));
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 3 });
  });

  it("resolves append only once the line is in the file", async () => {
    const log = await AuditLog.open({ dir });
    const entry = await log.append(callInput(0));
    const lines = await allLines();
    expect(JSON.parse(lines.at(-1) ?? "")).toEqual(entry);
    await log.close();
  });

  it("sets a torn last line aside after a crash and continues from the last good entry", async () => {
    const log = await AuditLog.open({ dir });
    for (let i = 0; i < 5; i += 1) await log.append(callInput(i));
    await log.close();
    const [name] = await logFiles();
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
    expect(next.prev).toBe(sha256((await allLines())[4] ?? ""));
    const after = await verifyAudit(dir);
    expect(after).toMatchObject({ ok: true, entries: 6, lastSeq: 6 });
    expect(after.note).toContain(tornFile);
  });

  it("sets aside a last line that ends in a newline but does not parse", async () => {
    const log = await AuditLog.open({ dir });
    for (let i = 0; i < 3; i += 1) await log.append(callInput(i));
    await log.close();
    const [name] = await logFiles();
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
    const before = await logFiles();
    const next = path.join(dir, "audit-20260101-000000-000000000013.jsonl");
    await writeFile(next, '{"seq":13,"ts":"2026-01-');

    const reopened = await AuditLog.open({ dir, maxFileBytes: 2048 });
    expect(reopened.recovery).toMatchObject({ tornBytes: 24 });
    expect(await logFiles()).toEqual(before);
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
      (await allLines()).map((line) => (JSON.parse(line) as { seq: number }).seq),
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

  it("starts a new file before one would pass maxFileBytes and keeps the chain across files", async () => {
    const maxFileBytes = 2048;
    const log = await AuditLog.open({ dir, maxFileBytes });
    for (let i = 0; i < 40; i += 1) await log.append(callInput(i));
    // Concurrent appends land in one batch that has to be split across files.
    await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(callInput(40 + i))));
    await log.close();

    const names = await logFiles();
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      expect((await stat(path.join(dir, name))).size).toBeLessThanOrEqual(maxFileBytes);
    }
    // Each file's name carries the seq of its first entry.
    for (const name of names) {
      const first = (await readFile(path.join(dir, name), "utf8")).split("\n")[0] ?? "";
      const seq = (JSON.parse(first) as { seq: number }).seq;
      expect(name).toMatch(new RegExp(`-${String(seq).padStart(12, "0")}\\.jsonl$`));
    }
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 80, firstSeq: 1 });

    const reopened = await AuditLog.open({ dir, maxFileBytes });
    await reopened.append(callInput(80));
    await reopened.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 81, lastSeq: 81 });
  });

  it("deletes files past retention at open, and verify says where the log now starts", async () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    const clock = manualClock(start);
    const log = await AuditLog.open({ dir, maxFileBytes: 2048, now: clock.now });
    for (let i = 0; i < 30; i += 1) await log.append(callInput(i));
    clock.set(start + 20 * DAY);
    for (let i = 30; i < 60; i += 1) await log.append(callInput(i));
    await log.close();
    const before = await logFiles();

    clock.set(start + 35 * DAY);
    const reopened = await AuditLog.open({ dir, maxFileBytes: 2048, now: clock.now });
    const removed = reopened.recovery.removedByRetention;
    expect(removed.length).toBeGreaterThan(0);
    const remaining = await logFiles();
    expect(remaining).toEqual(before.filter((name) => !removed.includes(name)));
    // A file goes when its newest entry is past retention; the file that spans the clock
    // jump keeps its older entries, and everything written since the jump is still there.
    const cutoff = start + 5 * DAY;
    const seqs = (await allLines()).map((line) => (JSON.parse(line) as AuditEntry).seq);
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
    const oldFiles = await logFiles();
    clock.set(start + 3 * DAY);
    for (let i = 20; i < 40; i += 1) await log.append(callInput(i));
    await log.close();

    const now = await logFiles();
    // Every file that held only entries from before the jump is gone; what was written since
    // is all there.
    const kept = now.filter((name) => oldFiles.includes(name));
    expect(kept.length).toBeLessThanOrEqual(1);
    for (const name of kept) {
      const lines = (await readFile(path.join(dir, name), "utf8")).trim().split("\n");
      expect(Date.parse((JSON.parse(lines.at(-1) ?? "") as AuditEntry).ts)).toBe(start + 3 * DAY);
    }
    const seqs = (await allLines()).map((line) => (JSON.parse(line) as AuditEntry).seq);
    expect(seqs).toEqual(expect.arrayContaining(Array.from({ length: 20 }, (_, i) => 21 + i)));
    expect((await readdir(dir)).some((name) => name.endsWith(".torn"))).toBe(false);
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, lastSeq: 40 });
  });

  it("feeds each entry to subscribers once, in order, after it is durable", async () => {
    const log = await AuditLog.open({ dir });
    const seen: number[] = [];
    const durableWhenSeen: boolean[] = [];
    const unsubscribe = log.subscribe((entry) => {
      seen.push(entry.seq);
      const text = readdirSyncLines();
      durableWhenSeen.push(text.includes(`{"seq":${entry.seq},`));
    });
    let thrown = 0;
    log.subscribe(() => {
      thrown += 1;
      throw new Error("a broken listener must not stop the log or the others");
    });
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(callInput(i))));
    for (let i = 50; i < 60; i += 1) await log.append(callInput(i));
    unsubscribe();
    await log.append(callInput(60));
    await log.close();

    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(durableWhenSeen.every(Boolean)).toBe(true);
    expect(thrown).toBe(61);
  });

  it("writes entries queued during a sync together (group commit); prints throughput", async () => {
    const log = await AuditLog.open({ dir });
    const sequentialCount = 200;
    let started = performance.now();
    for (let i = 0; i < sequentialCount; i += 1) await log.append(callInput(i));
    const sequentialMs = performance.now() - started;

    const concurrentCount = 5000;
    const syncsBefore = log.stats.syncs;
    started = performance.now();
    await Promise.all(Array.from({ length: concurrentCount }, (_, i) => log.append(callInput(i))));
    const concurrentMs = performance.now() - started;
    const syncs = log.stats.syncs - syncsBefore;
    await log.close();

    expect(log.stats.entries).toBe(sequentialCount + concurrentCount);
    expect(syncs).toBeLessThan(concurrentCount / 10);
    expect(await verifyAudit(dir)).toMatchObject({
      ok: true,
      entries: sequentialCount + concurrentCount,
    });
    console.log(
      `append with fdatasync: one at a time ${Math.round((sequentialCount / sequentialMs) * 1000)}/s; ` +
        `${concurrentCount} concurrent ${Math.round((concurrentCount / concurrentMs) * 1000)}/s ` +
        `in ${syncs} syncs`,
    );
  });

  it("scrubs secrets from every text and cuts texts to their limits", async () => {
    const secret = "sk-live-123456";
    const log = await AuditLog.open({ dir, secrets: () => [secret, ""] });
    const code = `key = "${secret}"\n` + "x = 1\n".repeat(5000);
    const started = await log.append({
      kind: "run_started",
      runId: "r1",
      client: "claude",
      code,
      codeBytes: Buffer.byteLength(code),
      codeHash: sha256(code),
    });
    const finished = await log.append({
      kind: "run_finished",
      runId: "r1",
      client: "claude",
      durationMs: 5,
      calls: 0,
      exitCode: 1,
      stopped: null,
      timedOut: false,
      truncated: false,
      error: `401 for key ${secret}: ` + "e".repeat(10_000),
      stdoutBytes: 0,
      stderrBytes: 0,
    });
    await log.close();

    expect(started.kind === "run_started" && Buffer.byteLength(started.code)).toBe(
      AUDIT_LIMITS.codeMaxBytes,
    );
    expect(started.kind === "run_started" && started.code.startsWith('key = "[secret]"')).toBe(
      true,
    );
    expect(started.kind === "run_started" && started.codeBytes).toBe(Buffer.byteLength(code));
    const error = finished.kind === "run_finished" ? (finished.error ?? "") : "";
    expect(Buffer.byteLength(error)).toBeLessThanOrEqual(AUDIT_LIMITS.errorMaxBytes);
    expect(error.startsWith("401 for key [secret]: eee")).toBe(true);
    const onDisk = (await allLines()).join("\n");
    expect(onDisk).not.toContain(secret);
  });

  it("does not let a short secret touch hashes or enum values", async () => {
    const log = await AuditLog.open({ dir, secrets: () => ["a", "allowed"] });
    const entry = await log.append(callInput(0, { args: '{"x":"abc"}' }));
    await log.close();
    expect(entry).toMatchObject({
      kind: "call",
      decision: "allowed",
      resultHash: "a".repeat(64),
      args: '{"x":"[secret]bc"}',
    });
  });

  it("refuses an entry that does not match the schema without using up a seq", async () => {
    const log = await AuditLog.open({ dir });
    await log.append(callInput(0));
    const bad = { ...callInput(1), decision: "maybe" } as unknown as ReturnType<typeof callInput>;
    await expect(log.append(bad)).rejects.toThrow(/decision/);
    expect((await log.append(callInput(2))).seq).toBe(2);
    await log.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 2 });
  });

  it("never stamps an entry earlier than the one before, even when the clock goes back", async () => {
    const clock = manualClock(Date.parse("2026-03-01T12:00:00Z"));
    const log = await AuditLog.open({ dir, now: clock.now });
    const a = await log.append(callInput(0));
    clock.set(Date.parse("2026-03-01T10:00:00Z"));
    const b = await log.append(callInput(1));
    clock.set(Date.parse("2026-03-01T12:00:05Z"));
    const c = await log.append(callInput(2));
    await log.close();
    expect([a.ts, b.ts, c.ts]).toEqual([
      "2026-03-01T12:00:00.000Z",
      "2026-03-01T12:00:00.000Z",
      "2026-03-01T12:00:05.000Z",
    ]);
    expect((await verifyAudit(dir)).ok).toBe(true);
  });

  it("close writes what is queued and refuses what comes after", async () => {
    const log = await AuditLog.open({ dir });
    const pending = Array.from({ length: 20 }, (_, i) => log.append(callInput(i)));
    await log.close();
    expect((await Promise.all(pending)).map((entry) => entry.seq)).toHaveLength(20);
    await expect(log.append(callInput(20))).rejects.toThrow(/closed/);
    expect(await allLines()).toHaveLength(20);
  });

  // Listeners run synchronously, so the check that the line is on disk is synchronous too.
  function readdirSyncLines(): string {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => readFileSync(path.join(dir, name), "utf8"))
      .join("");
  }
});

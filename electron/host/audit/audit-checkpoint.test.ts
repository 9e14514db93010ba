// Cuts a hash chain cannot see alone, each made on a real log on disk, and the checkpoint (or
// a noted head) that catches it.
import { randomBytes } from "node:crypto";
import { unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CHECKPOINT_FILE,
  hmacSigner,
  readCheckpoint,
  signedText,
  type CheckpointSigner,
  AUDIT_CHECKPOINT_INTERVAL_MS,
} from "./audit-checkpoint.js";
import {
  auditLogFiles,
  fileLines as readLines,
  rewriteChain as rewrite,
  writeLines as putLines,
} from "../../../test-support/audit-tamper.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import { callInput, makeTempDir } from "../../../test-support/audit-fixtures.js";

const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern);
const DAY = 24 * 60 * 60 * 1000;

let dir: string;
let checkpointFile: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await makeTempDir());
  checkpointFile = path.join(path.dirname(dir), CHECKPOINT_FILE);
});
afterEach(async () => {
  await remove();
});

async function writeLog(
  count: number,
  options: { maxFileBytes?: number; signer?: CheckpointSigner } = {},
): Promise<string[]> {
  const log = await AuditLog.open({
    dir,
    maxFileBytes: options.maxFileBytes,
    fsync: false,
    checkpoint: { file: checkpointFile, signer: options.signer ?? null },
  });
  for (let i = 0; i < count; i += 1) await log.append(callInput(i));
  await log.close();
  return logFiles();
}

async function logFiles(): Promise<string[]> {
  return auditLogFiles(dir);
}

const fileLines = (name: string): Promise<string[]> => readLines(dir, name);
const writeLines = (name: string, lines: string[]): Promise<void> => putLines(dir, name, lines);
const rewriteChain = (seq: number): Promise<{ seq: number; hash: string }> =>
  rewrite(dir, seq, (entry) => {
    entry.decision = "refused";
  });

const opts = (): { checkpointFile: string } => ({ checkpointFile });

describe("audit checkpoint", () => {
  it("keeps the head and the retention seq outside the log, written at close", async () => {
    await writeLog(10);
    const read = await readCheckpoint(checkpointFile);
    const result = await verifyAudit(dir, opts());
    expect(result).toMatchObject({ ok: true, entries: 10, lastSeq: 10 });
    if (!result.ok || read.state !== "ok") throw new Error("expected a checkpoint");
    expect(read.checkpoint).toEqual({
      version: 1,
      seq: 10,
      hash: result.head?.hash,
      firstSeq: 1,
      signature: null,
    });
    expect(result.note).toMatch(/Checkpoint not signed: no OS keychain/);
  });

  it("fails a log whose newest entries were cut", async () => {
    const [name] = await writeLog(10);
    await writeLines(name ?? "", (await fileLines(name ?? "")).slice(0, 7));
    expect(await verifyAudit(dir, opts())).toMatchObject({
      ok: false,
      entries: 7,
      firstBad: {
        file: name,
        line: 8,
        seq: 8,
        problem: matching(/ends at seq 7 but the checkpoint .* says seq 10 was written: 3/),
      },
    });
  });

  it("fails a log whose newest file was removed whole", async () => {
    const names = await writeLog(30, { maxFileBytes: 2048 });
    await unlink(path.join(dir, names.at(-1) ?? ""));
    expect(await verifyAudit(dir, opts())).toMatchObject({
      ok: false,
      firstBad: { problem: matching(/newest entries were removed/) },
    });
  });

  it("fails a log whose oldest file was removed, unless retention removed it", async () => {
    const names = await writeLog(30, { maxFileBytes: 2048 });
    await unlink(path.join(dir, names[0] ?? ""));
    expect(await verifyAudit(dir, opts())).toMatchObject({
      ok: false,
      firstBad: {
        file: names[1],
        problem: matching(/retention removed only the entries before seq 1/),
      },
    });
  });

  it("passes a log whose oldest files retention removed, and says so", async () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    let nowMs = start;
    const log = await AuditLog.open({
      dir,
      maxFileBytes: 2048,
      retentionDays: 2,
      fsync: false,
      now: () => new Date(nowMs),
      checkpoint: { file: checkpointFile },
    });
    for (let i = 0; i < 20; i += 1) await log.append(callInput(i));
    nowMs = start + 3 * DAY;
    for (let i = 20; i < 40; i += 1) await log.append(callInput(i));
    await log.close();
    const result = await verifyAudit(dir, opts());
    expect(result).toMatchObject({ ok: true, lastSeq: 40 });
    if (!result.ok) return;
    expect(result.firstSeq).toBeGreaterThan(1);
    const read = await readCheckpoint(checkpointFile);
    expect(read.state === "ok" && read.checkpoint.firstSeq).toBe(result.firstSeq);
  });

  it("passes a rewritten chain against an unsigned rewritten checkpoint, but not a noted head", async () => {
    await writeLog(10);
    const noted = await verifyAudit(dir, opts());
    if (!noted.ok || noted.head === null) throw new Error("expected a head");
    const forged = await rewriteChain(4);
    const c = { version: 1 as const, seq: forged.seq, hash: forged.hash, firstSeq: 1 };
    await writeFile(checkpointFile, JSON.stringify({ ...c, signature: null }));

    // Honest about what it cannot see without a key:
    const unsignedResult = await verifyAudit(dir, opts());
    expect(unsignedResult).toMatchObject({
      ok: true,
      note: matching(/not signed: no OS keychain/),
    });
    // A head noted before the rewrite catches it.
    expect(await verifyAudit(dir, { ...opts(), head: noted.head })).toMatchObject({
      ok: false,
      firstBad: { seq: 10, problem: matching(/not the one the noted head recorded/) },
    });
  });

  it("fails a rewritten chain whose checkpoint is not signed by the app's key", async () => {
    const signer = hmacSigner(randomBytes(32), "test key");
    await writeLog(10, { signer });
    expect(await verifyAudit(dir, { ...opts(), signer })).toMatchObject({ ok: true });
    const forged = await rewriteChain(4);
    const c = { version: 1 as const, seq: forged.seq, hash: forged.hash, firstSeq: 1 };
    // The checkpoint left as it was: the rewritten entry 10 is not the one it recorded.
    expect(await verifyAudit(dir, { ...opts(), signer })).toMatchObject({
      ok: false,
      firstBad: { seq: 10, problem: matching(/not the one the checkpoint .* recorded/) },
    });
    // Rewritten too, without the key: unsigned, or signed with another key.
    await writeFile(checkpointFile, JSON.stringify({ ...c, signature: null }));
    expect(await verifyAudit(dir, { ...opts(), signer })).toMatchObject({
      ok: false,
      firstBad: { file: CHECKPOINT_FILE, problem: matching(/not signed/) },
    });
    const other = hmacSigner(randomBytes(32), "attacker");
    await writeFile(checkpointFile, JSON.stringify({ ...c, signature: other.sign(signedText(c)) }));
    expect(await verifyAudit(dir, { ...opts(), signer })).toMatchObject({
      ok: false,
      firstBad: { file: CHECKPOINT_FILE, problem: matching(/signature does not match/) },
    });
  });

  it("sets aside a checkpoint the log does not reach at start, and verify keeps failing", async () => {
    const [name] = await writeLog(10);
    await writeLines(name ?? "", (await fileLines(name ?? "")).slice(0, 6));
    const log = await AuditLog.open({ dir, fsync: false, checkpoint: { file: checkpointFile } });
    expect(log.recovery.checkpointProblem).toMatch(
      /ends at seq 6 but its checkpoint says seq 10 was written.*kept as .*\.cut\.json/,
    );
    for (let i = 0; i < 10; i += 1) await log.append(callInput(i));
    await log.close();
    expect(await verifyAudit(dir, opts())).toMatchObject({
      ok: false,
      firstBad: { file: matching(/^audit-checkpoint\.json\.10-\d+\.cut\.json$/) },
    });
  });

  it("writes the checkpoint within its interval while the log stays open", async () => {
    const log = await AuditLog.open({ dir, fsync: false, checkpoint: { file: checkpointFile } });
    await log.append(callInput(0));
    await log.append(callInput(1));
    // Not before the interval; then polled, since on a busy machine the timer and the write
    // that follow it can run late (a fixed 300 ms margin failed under CI load).
    await new Promise((resolve) => setTimeout(resolve, AUDIT_CHECKPOINT_INTERVAL_MS));
    let read = await readCheckpoint(checkpointFile);
    for (let waited = 0; !(read.state === "ok" && read.checkpoint.seq === 2) && waited < 20_000;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      waited += 100;
      read = await readCheckpoint(checkpointFile);
    }
    expect(read.state === "ok" && read.checkpoint.seq).toBe(2);
    await log.close();
  });

  it("fails an unreadable checkpoint", async () => {
    await writeLog(3);
    await writeFile(checkpointFile, "{");
    expect(await verifyAudit(dir, opts())).toMatchObject({
      ok: false,
      firstBad: { file: CHECKPOINT_FILE, problem: "unreadable: not valid JSON" },
    });
  });
});

// Deleting the checkpoint, or making its key unusable, must not turn cut detection off: each
// attack made on a real log on disk, then the app's start and verify that must report it.
import { randomBytes } from "node:crypto";
import { readdir, unlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileLines, writeLines, auditLogFiles } from "../../../test-support/audit-tamper.js";
import {
  CHECKPOINT_FILE,
  KEY_MARKER,
  MISSING_MARKER,
  hmacSigner,
  readCheckpoint,
  type CheckpointSigner,
} from "./audit-checkpoint.js";
import type { CheckpointExpectations } from "./audit-checkpoint-open.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import { callInput, makeTempDir } from "../../../test-support/audit-fixtures.js";

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

async function open(
  signer: CheckpointSigner | null,
  expectations: CheckpointExpectations = {},
): Promise<AuditLog> {
  return AuditLog.open({
    dir,
    fsync: false,
    checkpoint: { file: checkpointFile, signer, ...expectations },
  });
}

async function writeLog(count: number, signer: CheckpointSigner | null): Promise<void> {
  const log = await open(signer);
  for (let i = 0; i < count; i += 1) await log.append(callInput(i));
  await log.close();
}

async function markers(): Promise<string[]> {
  const names = await readdir(path.dirname(checkpointFile));
  return names.filter((n) => n.startsWith(`${CHECKPOINT_FILE}.`) && n.endsWith(".cut.json"));
}

describe("a checkpoint missing at start", () => {
  it("is a problem when the log holds entries, signed or not, and verify fails until it is removed", async () => {
    const signer = hmacSigner(randomBytes(32), "test key");
    await writeLog(10, signer);
    // The attack: cut the newest 4 entries while the app is stopped, and delete the checkpoint.
    const [name] = await auditLogFiles(dir);
    await writeLines(dir, name ?? "", (await fileLines(dir, name ?? "")).slice(0, 6));
    await unlink(checkpointFile);

    const log = await open(signer);
    await log.close();
    expect(log.recovery.checkpointProblem).toMatch(
      /audit checkpoint is missing though the log holds 6 entries: it was deleted/,
    );
    expect(await markers()).toEqual([`${CHECKPOINT_FILE}${MISSING_MARKER}`]);
    const result = await verifyAudit(dir, { checkpointFile, signer });
    expect(result).toMatchObject({
      ok: false,
      firstBad: {
        file: `${CHECKPOINT_FILE}${MISSING_MARKER}`,
        problem: expect.stringMatching(
          /found no checkpoint.*Remove the file once you have looked/,
        ) as unknown,
      },
    });

    // Acknowledged: the fresh checkpoint written at close holds from here on.
    await unlink(`${checkpointFile}${MISSING_MARKER}`);
    expect(await verifyAudit(dir, { checkpointFile, signer })).toMatchObject({ ok: true });
    const reopened = await open(signer);
    await reopened.close();
    expect(reopened.recovery.checkpointProblem).toBe(null);
  });

  it("is no problem at the first start, with an empty log", async () => {
    const log = await open(hmacSigner(randomBytes(32), "test key"));
    await log.close();
    expect(log.recovery.checkpointProblem).toBe(null);
    expect(await markers()).toEqual([]);
    expect((await readCheckpoint(checkpointFile)).state).toBe("ok");
  });

  it("is not left missing by a crash in the log's first second (written at open)", async () => {
    const crashed = await open(null);
    expect((await readCheckpoint(checkpointFile)).state).toBe("ok");
    for (let i = 0; i < 3; i += 1) await crashed.append(callInput(i));
    // Started again before the crashed log wrote its interval's checkpoint.
    const next = await open(null);
    expect(next.recovery.checkpointProblem).toBe(null);
    await next.close();
    await crashed.close();
  });

  it("is a problem, even with an empty log, when the app's key file existed", async () => {
    const log = await open(hmacSigner(randomBytes(32), "test key"), { expected: true });
    await log.close();
    expect(log.recovery.checkpointProblem).toMatch(/missing though this app has a checkpoint key/);
    expect(await verifyAudit(dir, { checkpointFile })).toMatchObject({
      ok: false,
      firstBad: { file: `${CHECKPOINT_FILE}${MISSING_MARKER}` },
    });
  });

  it("set aside when unsigned though the app signs (the downgrade)", async () => {
    await writeLog(5, null);
    const signer = hmacSigner(randomBytes(32), "test key");
    const log = await open(signer, { expected: true });
    await log.close();
    expect(log.recovery.checkpointProblem).toMatch(/not signed, though this app signs/);
    expect(await verifyAudit(dir, { checkpointFile, signer })).toMatchObject({ ok: false });
  });
});

describe("a checkpoint key the keychain cannot use", () => {
  it("is reported at start and fails verify, rather than signing nothing silently", async () => {
    const signer = hmacSigner(randomBytes(32), "test key");
    await writeLog(5, signer);
    const keyProblem = "the audit checkpoint key in x cannot be decrypted by this keychain";
    const log = await open(null, { expected: true, keyProblem });
    await log.close();
    expect(log.recovery.checkpointProblem).toMatch(/cannot be decrypted .*written unsigned/);
    expect(await verifyAudit(dir, { checkpointFile })).toMatchObject({
      ok: false,
      firstBad: {
        file: `${CHECKPOINT_FILE}${KEY_MARKER}`,
        problem: expect.stringMatching(/could not use its checkpoint key/) as unknown,
      },
    });
  });
});

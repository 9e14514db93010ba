// What the log does with the checkpoint it finds at start. One that the log does not reach (a
// cut while the app was stopped), that it contradicts, that cannot be read, or whose signature
// does not match, is renamed aside, never overwritten: verify keeps failing on it until the
// user has looked. The log then goes on from its own head with a fresh checkpoint. A checkpoint
// missing where one must exist (the log holds entries, or the app's key file exists), or a key
// file the keychain cannot decrypt, leaves a marker that verify reports the same way: deleting
// the checkpoint must not turn cut detection off.
import { writeFile } from "node:fs/promises";
import {
  MISSING_MARKER,
  KEY_MARKER,
  CheckpointWriter,
  readCheckpoint,
  setCheckpointAside,
  signatureMatches,
  type Checkpoint,
  type CheckpointSigner,
} from "./audit-checkpoint.js";

export interface OpenedCheckpoint {
  writer: CheckpointWriter;
  problem: string | null;
}

export interface CheckpointExpectations {
  /** The app's checkpoint key file existed before this start: it has written checkpoints. */
  expected?: boolean;
  /** Why the key file exists but cannot be used (not decrypted, not a key). */
  keyProblem?: string | null;
}

export async function openCheckpoint(
  file: string,
  signer: CheckpointSigner | null,
  log: { seq: number; hash: string; firstSeq: number },
  onError: (error: unknown) => void,
  expectations: CheckpointExpectations = {},
): Promise<OpenedCheckpoint> {
  const read = await readCheckpoint(file);
  const fresh = { seq: log.seq, hash: log.hash, firstSeq: log.firstSeq };
  const problems: string[] = [];
  if (expectations.keyProblem) {
    await mark(file, KEY_MARKER, expectations.keyProblem);
    problems.push(
      `${expectations.keyProblem}; checkpoints are written unsigned until it is fixed. Run "codemode audit verify".`,
    );
  }
  if (read.state === "missing") {
    if (log.seq > 0 || expectations.expected === true) {
      const why =
        log.seq > 0
          ? `the audit checkpoint is missing though the log holds ${log.seq} entries`
          : "the audit checkpoint is missing though this app has a checkpoint key";
      const marker = await mark(file, MISSING_MARKER, why);
      problems.push(
        `${why}: it was deleted, so entries cut at the end of the log could go unnoticed (expected once after upgrading from a Code Mode that kept no checkpoint); this was noted in ${marker}. Run "codemode audit verify".`,
      );
    }
    return {
      writer: await written(new CheckpointWriter(file, signer, fresh, onError)),
      problem: problems.length > 0 ? problems.join(" ") : null,
    };
  }
  const problem =
    read.state === "invalid"
      ? `the audit checkpoint could not be read (${read.problem})`
      : disagreement(read.checkpoint, signer, log);
  if (problem === null && read.state === "ok") {
    const kept = { ...fresh, firstSeq: Math.max(read.checkpoint.firstSeq, 1) };
    return {
      writer: await written(new CheckpointWriter(file, signer, kept, onError)),
      problem: problems.length > 0 ? problems.join(" ") : null,
    };
  }
  const seq = read.state === "ok" ? read.checkpoint.seq : 0;
  const aside = await setCheckpointAside(file, seq);
  problems.push(`${problem ?? ""}; it was kept as ${aside}. Run "codemode audit verify".`);
  return {
    writer: await written(new CheckpointWriter(file, signer, fresh, onError)),
    problem: problems.join(" "),
  };
}

/** Leaves `<file><suffix>` saying why; verify fails until the user removes it. */
async function mark(file: string, suffix: string, why: string): Promise<string> {
  const marker = `${file}${suffix}`;
  await writeFile(marker, `${JSON.stringify({ problem: why, at: new Date().toISOString() })}\n`, {
    mode: 0o600,
  });
  return marker;
}

function disagreement(
  c: Checkpoint,
  signer: CheckpointSigner | null,
  log: { seq: number; hash: string; firstSeq: number },
): string | null {
  if (signer !== null && !signatureMatches(c, signer)) {
    return c.signature === null
      ? "the audit checkpoint is not signed, though this app signs its checkpoints: it was forged, or written by codemode daemon (which has no keychain)"
      : "the audit checkpoint's signature does not match: it was forged or written with another key";
  }
  if (c.seq >= c.firstSeq && log.seq < c.seq) {
    return `the audit log ends at seq ${log.seq} but its checkpoint says seq ${c.seq} was written: entries were removed while the app was stopped`;
  }
  if (c.seq === log.seq && c.hash !== log.hash) {
    return `the audit log's newest entry (seq ${log.seq}) is not the one its checkpoint recorded: the log was rewritten while the app was stopped`;
  }
  if (log.seq > 0 && log.firstSeq > c.firstSeq) {
    return `the audit log starts at seq ${log.firstSeq} but retention removed only the entries before seq ${c.firstSeq}`;
  }
  return null;
}

/**
 * Written at once, not at the first interval: a crash in the first second of a log must leave
 * a checkpoint behind, or the next start would take it for one that was deleted.
 */
async function written(writer: CheckpointWriter): Promise<CheckpointWriter> {
  await writer.flush();
  return writer;
}

// What the log does with the checkpoint it finds at start. One that the log does not reach (a
// cut while the app was stopped), that it contradicts, that cannot be read, or whose signature
// does not match, is renamed aside, never overwritten: verify keeps failing on it until the
// user has looked. The log then goes on from its own head with a fresh checkpoint.
import {
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

export async function openCheckpoint(
  file: string,
  signer: CheckpointSigner | null,
  log: { seq: number; hash: string; firstSeq: number },
  onError: (error: unknown) => void,
): Promise<OpenedCheckpoint> {
  const read = await readCheckpoint(file);
  const fresh = { seq: log.seq, hash: log.hash, firstSeq: log.firstSeq };
  if (read.state === "missing") {
    return { writer: new CheckpointWriter(file, signer, fresh, onError), problem: null };
  }
  const problem =
    read.state === "invalid"
      ? `the audit checkpoint could not be read (${read.problem})`
      : disagreement(read.checkpoint, signer, log);
  if (problem === null && read.state === "ok") {
    const kept = { ...fresh, firstSeq: Math.max(read.checkpoint.firstSeq, 1) };
    return { writer: new CheckpointWriter(file, signer, kept, onError), problem: null };
  }
  const seq = read.state === "ok" ? read.checkpoint.seq : 0;
  const aside = await setCheckpointAside(file, seq);
  return {
    writer: new CheckpointWriter(file, signer, fresh, onError),
    problem: `${problem ?? ""}; it was kept as ${aside}. Run "codemode audit verify".`,
  };
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

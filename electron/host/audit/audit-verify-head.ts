// The part of verify that a hash chain cannot do alone: the log must reach the head kept
// outside it (the checkpoint, and a head the user noted), and must not start after the seq
// retention recorded. What was read before the walk is checked after it, so a checkpoint
// written while verify runs can only be behind the log it reads, never ahead of it.
import { readdir } from "node:fs/promises";
import path from "node:path";
import {
  CHECKPOINT_FILE,
  KEY_MARKER,
  MISSING_MARKER,
  SET_ASIDE_SUFFIX,
  readCheckpoint,
  signatureMatches,
  type CheckpointHead,
  type CheckpointSigner,
  type ReadCheckpoint,
} from "./audit-checkpoint.js";
import { isErrno } from "../util/errno.js";

export interface VerifyHeadOptions {
  /** The checkpoint file beside the log (the data directory's CHECKPOINT_FILE). */
  checkpointFile?: string;
  /** The key the app signs checkpoints with; absent where the key cannot be read. */
  signer?: CheckpointSigner | null;
  /** A head the user noted earlier (`--head SEQ:HASH`). */
  head?: CheckpointHead;
}

export interface HeadBad {
  file: string;
  line: number;
  seq: number | null;
  problem: string;
}

/** What the walk saw that these checks need. */
export interface WalkedLog {
  firstSeq: number | null;
  /** The newest entry: its seq, hash, file and line. */
  last: { seq: number; hash: string; file: string; line: number } | null;
  firstFile: string | null;
  /** Hashes of the entries whose seq `wantedSeqs` named. */
  hashes: ReadonlyMap<number, string>;
}

export interface HeadsBefore {
  checkpoint: ReadCheckpoint | null;
  setAside: string[];
}

/** Read before the walk. */
export async function readHeads(options: VerifyHeadOptions): Promise<HeadsBefore> {
  if (options.checkpointFile === undefined) return { checkpoint: null, setAside: [] };
  const dir = path.dirname(options.checkpointFile);
  const base = path.basename(options.checkpointFile);
  let names: string[] = [];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
  return {
    checkpoint: await readCheckpoint(options.checkpointFile),
    setAside: names.filter((n) => n.startsWith(`${base}.`) && n.endsWith(SET_ASIDE_SUFFIX)).sort(),
  };
}

export function wantedSeqs(before: HeadsBefore, options: VerifyHeadOptions): Set<number> {
  const seqs = new Set<number>();
  if (before.checkpoint?.state === "ok") seqs.add(before.checkpoint.checkpoint.seq);
  if (options.head !== undefined) seqs.add(options.head.seq);
  return seqs;
}

/** The first problem found, or the notes to add when there is none. */
export function checkHeads(
  before: HeadsBefore,
  options: VerifyHeadOptions,
  log: WalkedLog,
): { bad: HeadBad } | { notes: string[] } {
  const notes: string[] = [];
  const cpName = path.basename(options.checkpointFile ?? CHECKPOINT_FILE);
  const lastSeq = log.last?.seq ?? 0;
  const endsBefore = (seq: number, what: string): HeadBad => ({
    file: log.last?.file ?? cpName,
    line: (log.last?.line ?? 0) + 1,
    seq: lastSeq + 1,
    problem:
      log.last === null
        ? `the log is empty but ${what} says seq ${seq} was written: its entries were removed`
        : `the log ends at seq ${lastSeq} but ${what} says seq ${seq} was written: ${seq - lastSeq} of its newest entries were removed`,
  });
  const rewritten = (seq: number, what: string): HeadBad => ({
    file: cpName,
    line: 1,
    seq,
    problem: `entry seq ${seq} is not the one ${what} recorded: the log was rewritten from there or before`,
  });

  for (const name of before.setAside) {
    return { bad: { file: name, line: 1, seq: null, problem: setAsideProblem(name) } };
  }

  const read = before.checkpoint;
  if (read?.state === "invalid") {
    return { bad: { file: cpName, line: 1, seq: null, problem: `unreadable: ${read.problem}` } };
  }
  if (read?.state === "missing" && log.last !== null) {
    notes.push(`No checkpoint (${cpName}): a cut at the end of the log cannot be detected.`);
  }
  if (read?.state === "ok") {
    const c = read.checkpoint;
    const what = `the checkpoint (${cpName})`;
    const signed = c.signature !== null;
    if (options.signer && !signatureMatches(c, options.signer)) {
      return {
        bad: {
          file: cpName,
          line: 1,
          seq: c.seq,
          problem: signed
            ? "its signature does not match: it was forged, or written with another key"
            : "it is not signed, though this app signs its checkpoints: it was forged, or written by codemode daemon (which has no keychain)",
        },
      };
    }
    if (c.seq >= c.firstSeq && lastSeq < c.seq) return { bad: endsBefore(c.seq, what) };
    const hash = log.hashes.get(c.seq);
    if (hash !== undefined && hash !== c.hash) return { bad: rewritten(c.seq, what) };
    if (log.firstSeq !== null && log.firstSeq > c.firstSeq) {
      return {
        bad: {
          file: log.firstFile ?? cpName,
          line: 1,
          seq: log.firstSeq,
          problem: `the log starts at seq ${log.firstSeq} but retention removed only the entries before seq ${c.firstSeq}: entries ${c.firstSeq}-${log.firstSeq - 1} were removed otherwise`,
        },
      };
    }
    if (!signed) {
      notes.push(
        "Checkpoint not signed: no OS keychain. A log rewritten with recomputed hashes together " +
          "with its checkpoint is not detected; note the head and check it later with --head.",
      );
    } else if (!options.signer) {
      notes.push(
        "The checkpoint is signed with a key in the app's OS keychain; its signature is " +
          "checked by Verify in the app, not here.",
      );
    }
  }

  const noted = options.head;
  if (noted !== undefined) {
    const what = "the noted head";
    if (lastSeq < noted.seq) return { bad: endsBefore(noted.seq, what) };
    const hash = log.hashes.get(noted.seq);
    if (hash === undefined) {
      notes.push(
        `The noted head seq ${noted.seq} is older than the log's first entry: removed by retention, it cannot be checked.`,
      );
    } else if (hash !== noted.hash) {
      return { bad: rewritten(noted.seq, what) };
    }
  }
  return { notes };
}

const ACKNOWLEDGE = "Remove the file once you have looked into it.";

function setAsideProblem(name: string): string {
  if (name.endsWith(MISSING_MARKER)) {
    return (
      "at start the app found no checkpoint, though the log held entries or the app had a " +
      "checkpoint key: it was deleted, so entries cut from the end of the log before then " +
      "cannot be detected (expected once after upgrading from a Code Mode that kept no " +
      `checkpoint). ${ACKNOWLEDGE}`
    );
  }
  if (name.endsWith(KEY_MARKER)) {
    return (
      "at start the app could not use its checkpoint key (the OS keychain could not decrypt " +
      "it, or it is not a key): checkpoints were written unsigned, so a rewritten log and " +
      `checkpoint would not be detected. ${ACKNOWLEDGE}`
    );
  }
  return (
    "at start the app found the log did not reach this checkpoint, or the checkpoint " +
    "unreadable or not signed by its key, and set it aside: entries were removed or " +
    `rewritten while the app was stopped. ${ACKNOWLEDGE}`
  );
}

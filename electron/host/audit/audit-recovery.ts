// What the audit log finds when it opens: where the chain ends, what a crash left behind
// (set aside, never dropped), what retention removes, and the file to continue.
import { mkdir, open, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { GENESIS_PREV } from "../../../shared/audit-entry.js";
import type { CheckpointSigner, CheckpointWriter } from "./audit-checkpoint.js";
import { openCheckpoint, type CheckpointExpectations } from "./audit-checkpoint-open.js";
import {
  openForAppend,
  syncDirectory,
  writeSynced,
  type AppendFile,
} from "./audit-durable-write.js";
import {
  TORN_SUFFIX,
  lastCompleteLine,
  linesBackward,
  listAuditFiles,
  parseHead,
  readAt,
  type AuditFile,
} from "./audit-files.js";
import { sha256Hex } from "../util/sha256-hex.js";
import { DAY_MS, pruneOldFiles, type AuditLimits } from "./audit-retention.js";
import { pruneToSize, type SizePruned } from "./audit-size-cap.js";

export interface Head {
  seq: number;
  /** sha256 of the last line as written. */
  hash: string;
  tsMs: number;
}

export interface CurrentFile extends AppendFile {
  path: string;
  size: number;
}

/** What open() found and did. */
export interface AuditRecovery {
  /** Where the bytes of an unfinished or unreadable last line were moved, if there were any. */
  tornFile: string | null;
  tornBytes: number;
  /** Files deleted because their newest entry was older than the retention period. */
  removedByRetention: string[];
  /** Files deleted at start because the log was over its total size cap. */
  removedBySize: SizePruned | null;
  /** Why the checkpoint found at start disagreed with the log, and where it was set aside. */
  checkpointProblem: string | null;
}

export interface RecoverOptions {
  dir: string;
  now: () => Date;
  limits: AuditLimits;
  onError: (error: unknown) => void;
  checkpoint?: { file: string; signer?: CheckpointSigner | null } & CheckpointExpectations;
  /** The log syncs its writes: the file it continues is opened as openForAppend says. */
  fsync: boolean;
}

export interface RecoveredLog {
  head: Head;
  /** The newest file while it has room; null: the next entry starts a new one. */
  current: CurrentFile | null;
  checkpoint: CheckpointWriter | null;
  /** What the size cap removed at start: the log records it as its first new entry. */
  pruned: SizePruned | null;
  recovery: AuditRecovery;
}

/**
 * Picks up the chain where the last file ends. A crash can leave the last line unfinished or
 * unreadable: those bytes are moved to a `.torn` file beside it, never dropped, and the chain
 * continues from the last good line. Files past the retention period or the size cap go.
 */
export async function recoverAuditLog(options: RecoverOptions): Promise<RecoveredLog> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const files = await listAuditFiles(options.dir);
  const torn = { tornFile: null as string | null, tornBytes: 0 };
  const newest = files.at(-1);
  if (newest !== undefined) Object.assign(torn, await setTornTailAside(newest, options.dir));

  let head: Head = { seq: 0, hash: GENESIS_PREV, tsMs: Number.NEGATIVE_INFINITY };
  // Trailing empty files (a crash between creating a file and writing to it) hold nothing.
  for (let last = files.at(-1); last !== undefined; last = files.at(-1)) {
    const line = await lastCompleteLine(last.path);
    if (line === null) {
      await unlink(last.path);
      files.pop();
      continue;
    }
    const parsed = parseHead(line);
    if (parsed === null) {
      throw new Error(
        `the audit log's last entry in ${last.name} cannot be read; run "codemode audit verify"`,
      );
    }
    head = { ...parsed, hash: sha256Hex(line) };
    break;
  }

  const opened =
    options.checkpoint === undefined
      ? null
      : await openCheckpoint(
          options.checkpoint.file,
          options.checkpoint.signer ?? null,
          { ...head, firstSeq: files[0]?.firstSeq ?? head.seq + 1 },
          options.onError,
          options.checkpoint,
        );
  const checkpoint = opened?.writer ?? null;

  const { removed, kept: young } = await pruneOldFiles(
    options.dir,
    files,
    options.now().getTime() - options.limits.retentionDays * DAY_MS,
    null,
    (firstSeq) => checkpoint?.noteRetention(firstSeq ?? head.seq + 1),
  );
  const { pruned, kept } = await pruneToSize(young, options.limits.maxTotalBytes, (firstSeq) =>
    checkpoint?.noteRetention(firstSeq),
  );

  let current: CurrentFile | null = null;
  const last = kept.at(-1);
  if (last !== undefined) {
    const size = (await stat(last.path)).size;
    if (size < options.limits.maxFileBytes)
      current = { ...(await openForAppend(last.path, options.fsync)), path: last.path, size };
  }
  return {
    head,
    current,
    checkpoint,
    pruned,
    recovery: {
      ...torn,
      removedByRetention: removed,
      removedBySize: pruned,
      checkpointProblem: opened?.problem ?? null,
    },
  };
}

/**
 * Moves what a crash can leave at the end of the newest file (bytes after its last newline,
 * and a last line that does not parse) into `<file>.<offset>.torn`, then cuts the file back
 * to its last good line. The copy is synced before the cut, so the bytes exist somewhere at
 * every moment.
 */
async function setTornTailAside(
  file: AuditFile,
  dir: string,
): Promise<{ tornFile: string | null; tornBytes: number }> {
  const handle = await open(file.path, "r+");
  try {
    const size = (await handle.stat()).size;
    let goodEnd = 0;
    for await (const line of linesBackward(file.path)) {
      goodEnd = line.offset + line.bytes.length + 1;
      if (parseHead(line.bytes) === null) goodEnd = line.offset;
      break;
    }
    if (goodEnd >= size) return { tornFile: null, tornBytes: 0 };
    const torn = await readAt(handle, goodEnd, size - goodEnd);
    const tornName = `${file.name}.${goodEnd}${TORN_SUFFIX}`;
    const tornPath = path.join(dir, tornName);
    await writeSynced(tornPath, torn);
    await syncDirectory(dir);
    await handle.truncate(goodEnd);
    await handle.sync();
    return { tornFile: tornName, tornBytes: torn.length };
  } finally {
    await handle.close();
  }
}

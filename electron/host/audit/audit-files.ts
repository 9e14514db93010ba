// Where the audit log's files are and how their lines are read. Lines are handled as bytes
// wherever a hash is involved: `prev` is the hash of a line exactly as written, and decoding
// and re-encoding could change it.
import { open, readdir, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { isErrno } from "../util/errno.js";
import { KiB } from "../util/units.js";

/** How far a timestamp may go back before verify calls the order into question. */
export const AUDIT_CLOCK_SKEW_MS = 60_000;

/** Chunk size for reading files from the end. */
export const AUDIT_READ_CHUNK_BYTES = 256 * KiB;

const NEWLINE = 0x0a;
const FILE_NAME = /^audit-(\d{8})-(\d{6})-(\d{12,})\.jsonl$/;
export const TORN_SUFFIX = ".torn";

export interface AuditFile {
  name: string;
  path: string;
  /** The seq of the file's first entry, from its name. */
  firstSeq: number;
}

/** Names sort by time and by seq alike; the seq is what orders them, whatever the clock did. */
export function auditFileName(firstSeq: number, at: Date): string {
  const iso = at.toISOString();
  const date = iso.slice(0, 10).replaceAll("-", "");
  const time = iso.slice(11, 19).replaceAll(":", "");
  return `audit-${date}-${time}-${String(firstSeq).padStart(12, "0")}.jsonl`;
}

/** The log's files, oldest first. A missing directory is an empty log. */
export async function listAuditFiles(dir: string): Promise<AuditFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return [];
    throw error;
  }
  const files: AuditFile[] = [];
  for (const name of names) {
    const match = FILE_NAME.exec(name);
    if (match?.[3] === undefined) continue;
    files.push({ name, path: path.join(dir, name), firstSeq: Number(match[3]) });
  }
  return files.sort((a, b) => a.firstSeq - b.firstSeq || a.name.localeCompare(b.name));
}

export async function listTornFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith(TORN_SUFFIX)).sort();
  } catch (error) {
    if (isErrno(error, "ENOENT")) return [];
    throw error;
  }
}

export async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

export interface BackwardLine {
  bytes: Buffer;
  /** Byte offset of the line's start in the file. */
  offset: number;
}

/**
 * The complete lines of a file, last first, without their newlines. Bytes after the last
 * newline are an unfinished line (a write in progress, or a crash) and are not yielded. Reads
 * fixed-size chunks from the end, so the newest entries cost the same however big the file.
 */
export async function* linesBackward(
  file: string,
  chunkBytes: number = AUDIT_READ_CHUNK_BYTES,
): AsyncGenerator<BackwardLine> {
  const handle = await open(file, "r");
  try {
    let position = (await handle.stat()).size;
    // `rest` holds the bytes from `position` up to the end of the line being assembled.
    let rest: Buffer = Buffer.alloc(0);
    let foundEnd = false;
    while (position > 0) {
      const start = Math.max(0, position - chunkBytes);
      const chunk = await readAt(handle, start, position - start);
      const data = rest.length === 0 ? chunk : Buffer.concat([chunk, rest]);
      position = start;
      let end = data.length;
      if (!foundEnd) {
        const newline = data.lastIndexOf(NEWLINE);
        if (newline === -1) {
          rest = data;
          continue;
        }
        foundEnd = true;
        end = newline;
      }
      let newline = end > 0 ? data.lastIndexOf(NEWLINE, end - 1) : -1;
      while (newline !== -1) {
        yield { bytes: data.subarray(newline + 1, end), offset: start + newline + 1 };
        end = newline;
        newline = end > 0 ? data.lastIndexOf(NEWLINE, end - 1) : -1;
      }
      rest = data.subarray(0, end);
      if (position === 0) yield { bytes: rest, offset: 0 };
    }
  } finally {
    await handle.close();
  }
}

export interface ForwardLine {
  bytes: Buffer;
  /** 1-based. */
  line: number;
  /** False for bytes after the file's last newline: a line still being written, or torn. */
  complete: boolean;
}

/**
 * The lines of a file, first first, a chunk's worth at a time: for a reader of every line
 * (verify), one await per chunk instead of one per line. `readBytes` is how far the file has
 * been read.
 */
export async function* lineBatchesForward(
  file: string,
  chunkBytes: number = AUDIT_READ_CHUNK_BYTES,
): AsyncGenerator<{ lines: ForwardLine[]; readBytes: number }> {
  const handle = await open(file, "r");
  try {
    let position = 0;
    let rest: Buffer = Buffer.alloc(0);
    let line = 0;
    for (;;) {
      const chunk = await readAt(handle, position, chunkBytes);
      if (chunk.length === 0) break;
      position += chunk.length;
      const data = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
      const lines: ForwardLine[] = [];
      let start = 0;
      let newline = data.indexOf(NEWLINE, start);
      while (newline !== -1) {
        line += 1;
        lines.push({ bytes: data.subarray(start, newline), line, complete: true });
        start = newline + 1;
        newline = data.indexOf(NEWLINE, start);
      }
      rest = data.subarray(start);
      yield { lines, readBytes: position - rest.length };
    }
    if (rest.length > 0) {
      yield { lines: [{ bytes: rest, line: line + 1, complete: false }], readBytes: position };
    }
  } finally {
    await handle.close();
  }
}

/** The lines of a file, first first, without their newlines. */
export async function* linesForward(
  file: string,
  chunkBytes: number = AUDIT_READ_CHUNK_BYTES,
): AsyncGenerator<ForwardLine> {
  for await (const batch of lineBatchesForward(file, chunkBytes)) yield* batch.lines;
}

/** The seq and time of a line, or null when it is not a readable entry. */
export function parseHead(line: Buffer): { seq: number; tsMs: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { seq, ts } = value as { seq?: unknown; ts?: unknown };
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return null;
  const tsMs = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
  if (!Number.isFinite(tsMs)) return null;
  return { seq, tsMs };
}

export async function lastCompleteLine(file: string): Promise<Buffer | null> {
  for await (const line of linesBackward(file)) return line.bytes;
  return null;
}

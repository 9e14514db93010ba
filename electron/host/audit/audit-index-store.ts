// The index of an audit file, kept on disk beside the log (in its `.index` folder) so a start
// does not read the whole log again. It is a cache: written without sync, checked by a hash of
// its body when read, and thrown away whenever it does not agree with the log.
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { readAt } from "./audit-files.js";
import { sha256Hex } from "../util/sha256-hex.js";
import type { EntryTexts, FileIndexState } from "./audit-index-file.js";
import { AUDIT_KINDS } from "../../../shared/audit-entry.js";

export const INDEX_DIR = ".index";
const FORMAT = "codemode-audit-index";
const VERSION = 1;
/**
 * Bump when what an index derives from an entry changes (`entryText`, `serversOf`, `toolsOf`, the
 * posting keys). Together with the list of kinds (whose positions are the stored kind codes) it
 * makes `DERIVATION`: an index saved by an app that derived differently is rebuilt, never trusted,
 * even for a rotated file whose last line still agrees (a downgrade then upgrade).
 */
const DERIVATION_VERSION = 1;
export const DERIVATION = sha256Hex(
  Buffer.from(JSON.stringify({ derivation: DERIVATION_VERSION, kinds: AUDIT_KINDS })),
);
const INDEX_SUFFIX = ".idx";

interface Header {
  format: string;
  version: number;
  derivation: string;
  name: string;
  bytes: number;
  lastLineOffset: number;
  lastLineHash: string;
  count: number;
  keys: string[];
  /** Entries per key, in the order of `keys`. */
  postingLengths: number[];
  textBytes: number;
  bodyHash: string;
}

/** Where the text column lies in a saved index, for reading it back without the rest. */
export interface TextSection {
  file: string;
  position: number;
  count: number;
  textBytes: number;
}

export function indexPath(dir: string, logName: string): string {
  return path.join(dir, INDEX_DIR, `${logName}${INDEX_SUFFIX}`);
}

/** The log name an index file is for; null for any other name. */
export function logNameOf(indexName: string): string | null {
  return indexName.endsWith(INDEX_SUFFIX) ? indexName.slice(0, -INDEX_SUFFIX.length) : null;
}

const asBytes = (array: ArrayBufferView): Uint8Array =>
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/** Writes `state` beside the log; says where its text column went. */
export async function saveIndex(dir: string, state: FileIndexState): Promise<TextSection> {
  const keys = [...state.postings.keys()];
  const lists = keys.map((key) => state.postings.get(key) ?? new Uint32Array(0));
  const textPart = [asBytes(state.text.starts), asBytes(state.text.text)];
  const body = Buffer.concat([
    asBytes(state.seqs),
    asBytes(state.tsMs),
    asBytes(state.offsets),
    asBytes(state.lengths),
    ...lists.map(asBytes),
    asBytes(state.kinds),
    ...textPart,
  ]);
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    derivation: DERIVATION,
    name: state.name,
    bytes: state.bytes,
    lastLineOffset: state.lastLineOffset,
    lastLineHash: state.lastLineHash,
    count: state.offsets.length,
    keys,
    postingLengths: lists.map((list) => list.length),
    textBytes: state.text.text.length,
    bodyHash: sha256Hex(body),
  };
  const file = indexPath(dir, state.name);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const head = Buffer.from(`${JSON.stringify(header)}\n`);
  await writeFile(temporary, Buffer.concat([head, body]), { mode: 0o600 });
  await rename(temporary, file);
  const textLength = textPart.reduce((sum, part) => sum + part.length, 0);
  return {
    file,
    position: head.length + body.length - textLength,
    count: state.offsets.length,
    textBytes: state.text.text.length,
  };
}

/** The text column of a saved index (what a search reads). */
export async function readTextSection(section: TextSection): Promise<EntryTexts> {
  const handle = await open(section.file, "r");
  try {
    const startsBytes = (section.count + 1) * 4;
    const data = await readAt(handle, section.position, startsBytes + section.textBytes);
    if (data.length !== startsBytes + section.textBytes) {
      throw new Error(`the index ${section.file} is shorter than when it was read`);
    }
    const starts = new Uint32Array(section.count + 1);
    new Uint8Array(starts.buffer).set(data.subarray(0, startsBytes));
    return { starts, text: data.subarray(startsBytes) };
  } finally {
    await handle.close();
  }
}

/** The saved index of `logName`; null when there is none or it is not whole and of this format. */
export async function loadIndex(
  dir: string,
  logName: string,
): Promise<{ state: FileIndexState; text: TextSection } | null> {
  const file = indexPath(dir, logName);
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    return null;
  }
  const newline = data.indexOf(0x0a);
  if (newline === -1) return null;
  let header: unknown;
  try {
    header = JSON.parse(data.toString("utf8", 0, newline));
  } catch {
    return null;
  }
  if (!isHeader(header) || header.name !== logName) return null;
  const body = data.subarray(newline + 1);
  const n = header.count;
  const postingTotal = header.postingLengths.reduce((sum, length) => sum + length, 0);
  const expected = n * 8 * 2 + n * 4 * 2 + postingTotal * 4 + n + (n + 1) * 4 + header.textBytes;
  if (body.length !== expected || sha256Hex(body) !== header.bodyHash) return null;
  let at = 0;
  // Copied out: the file's buffer need not be aligned for the typed arrays.
  const fill = <T extends Float64Array | Uint32Array | Uint8Array>(out: T): T => {
    new Uint8Array(out.buffer).set(body.subarray(at, at + out.byteLength));
    at += out.byteLength;
    return out;
  };
  const seqs = fill(new Float64Array(n));
  const tsMs = fill(new Float64Array(n));
  const offsets = fill(new Uint32Array(n));
  const lengths = fill(new Uint32Array(n));
  const postings = new Map<string, Uint32Array>();
  header.keys.forEach((key, i) => {
    postings.set(key, fill(new Uint32Array(header.postingLengths[i] ?? 0)));
  });
  const kinds = fill(new Uint8Array(n));
  const textPosition = newline + 1 + at;
  const starts = fill(new Uint32Array(n + 1));
  const text = Buffer.from(body.subarray(at, at + header.textBytes));
  const state: FileIndexState = {
    name: logName,
    bytes: header.bytes,
    lastLineOffset: header.lastLineOffset,
    lastLineHash: header.lastLineHash,
    offsets,
    lengths,
    seqs,
    tsMs,
    kinds,
    postings,
    text: { starts, text },
  };
  if (!isConsistent(state)) return null;
  return {
    state,
    text: { file, position: textPosition, count: n, textBytes: header.textBytes },
  };
}

export async function removeIndex(dir: string, logName: string): Promise<void> {
  await rm(indexPath(dir, logName), { force: true });
}

function isHeader(value: unknown): value is Header {
  if (typeof value !== "object" || value === null) return false;
  const h = value as Record<string, unknown>;
  const count = (item: unknown): boolean => Number.isSafeInteger(item) && (item as number) >= 0;
  return (
    h.format === FORMAT &&
    h.version === VERSION &&
    h.derivation === DERIVATION &&
    typeof h.name === "string" &&
    [h.bytes, h.lastLineOffset, h.count, h.textBytes].every(count) &&
    typeof h.lastLineHash === "string" &&
    typeof h.bodyHash === "string" &&
    Array.isArray(h.keys) &&
    h.keys.every((key) => typeof key === "string") &&
    Array.isArray(h.postingLengths) &&
    h.postingLengths.length === h.keys.length &&
    h.postingLengths.every(count)
  );
}

// A body with the right hash was written by us; these checks keep a bug of ours from turning
// into reads out of bounds.
function isConsistent(state: FileIndexState): boolean {
  const n = state.offsets.length;
  const { starts, text } = state.text;
  if (starts[n] !== text.length) return false;
  for (let i = 0; i < n; i += 1) {
    if ((state.offsets[i] ?? 0) + (state.lengths[i] ?? 0) >= state.bytes) return false;
    if ((starts[i] ?? 0) > (starts[i + 1] ?? 0)) return false;
  }
  for (const list of state.postings.values()) {
    for (const entry of list) if (entry >= n) return false;
  }
  return true;
}

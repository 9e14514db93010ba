// The index of one audit file: where each entry's line starts, its seq, time and kind, which
// names it carries (client, servers, tools, decision, run), and its searchable text. It only
// narrows where to look: every entry a query returns is read back from the log and checked.
import { open } from "node:fs/promises";
import { AUDIT_KINDS } from "../../../shared/audit-entry.js";
import { clientOf, entryText, runIdOf, serversOf, toolsOf } from "../../../shared/audit-filter.js";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import { readAt } from "./audit-files.js";
import { sha256Hex } from "../util/sha256-hex.js";
import { ByteColumn, F64Column, U32Column, U8Column } from "./audit-index-columns.js";
import { TrigramBlocks, AUDIT_INDEX_TEXT_BLOCK_ENTRIES } from "./audit-index-trigrams.js";
import { MiB } from "../util/units.js";

/** The index reads the log forward in chunks of this size when it builds or catches up. */
export const AUDIT_INDEX_READ_CHUNK_BYTES = 1 * MiB;

/** The build at host start lets other work run after each this many entries it indexes. */
export const AUDIT_INDEX_BUILD_YIELD_ENTRIES = 256;

const NEWLINE = 0x0a;
export const UNKNOWN_KIND = 255;
const KIND_CODES = new Map<string, number>(AUDIT_KINDS.map((kind, code) => [kind, code]));

export type KeyField = "client" | "server" | "tool" | "decision" | "runId";

/** One name an entry carries, as the index spells it. */
export function indexKey(field: KeyField, value: string): string {
  return `${field}\u0000${value}`;
}

function keysOf(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  // Not validated: every name is checked to be a string before it becomes a key.
  const entry = value as AuditEntry;
  const keys: string[] = [];
  const add = (field: KeyField, name: unknown): void => {
    if (typeof name === "string") keys.push(indexKey(field, name));
  };
  add("client", clientOf(entry));
  add("runId", runIdOf(entry));
  const servers: unknown = serversOf(entry);
  if (Array.isArray(servers)) for (const server of servers) add("server", server);
  for (const tool of toolsOf(entry)) add("tool", tool);
  if (entry.kind === "call") add("decision", entry.decision);
  return [...new Set(keys)];
}

export interface FileIndexState {
  name: string;
  /** Bytes of the log file covered: always just after a newline. */
  bytes: number;
  /** sha256 of the last covered line and where it starts (the tail a stale index would differ in). */
  lastLineOffset: number;
  lastLineHash: string;
  offsets: Uint32Array;
  lengths: Uint32Array;
  seqs: Float64Array;
  tsMs: Float64Array;
  kinds: Uint8Array;
  /** Per key, the entries carrying it, ascending. */
  postings: Map<string, Uint32Array>;
  text: EntryTexts;
}

/** The text column: entry i's text is `text[starts[i]..starts[i+1])`. */
export interface EntryTexts {
  starts: Uint32Array;
  text: Buffer;
}

/** Where a saved index keeps the text column, read only when a search needs it. */
export type TextSource = () => Promise<EntryTexts>;

export class FileIndex {
  readonly name: string;
  bytes = 0;
  lastLineOffset = 0;
  lastLineHash = "";
  /** Entries added since the sidecar was last written. */
  unsaved = 0;
  readonly #postings = new Map<string, U32Column>();
  readonly offsets: U32Column;
  readonly lengths: U32Column;
  readonly seqs: F64Column;
  readonly tsMs: F64Column;
  readonly kinds: U8Column;
  /** In memory while the file grows; once saved and complete, read from the saved index. */
  #text: { starts: U32Column; text: ByteColumn } | null;
  #textSource: TextSource | null = null;
  /** Derived from the text column (built again when a saved index is read), always in memory. */
  readonly #trigrams = new TrigramBlocks();

  constructor(name: string, state?: FileIndexState, textSource?: TextSource) {
    this.name = name;
    this.offsets = new U32Column(state?.offsets);
    this.lengths = new U32Column(state?.lengths);
    this.seqs = new F64Column(state?.seqs);
    this.tsMs = new F64Column(state?.tsMs);
    this.kinds = new U8Column(state?.kinds);
    this.#text = {
      starts: new U32Column(state?.text.starts ?? Uint32Array.of(0)),
      text: new ByteColumn(state?.text.text),
    };
    if (state === undefined) return;
    this.bytes = state.bytes;
    this.lastLineOffset = state.lastLineOffset;
    this.lastLineHash = state.lastLineHash;
    for (const [key, list] of state.postings) this.#postings.set(key, new U32Column(list));
    const { starts, text } = state.text;
    for (let entry = 0; entry < this.count; entry += 1) {
      this.#trigrams.add(entry, text.subarray(starts[entry] ?? 0, starts[entry + 1] ?? 0));
    }
    if (textSource !== undefined) this.releaseText(textSource);
  }

  get count(): number {
    return this.offsets.length;
  }

  /** Whether the text column is held in memory (not yet handed to a saved index). */
  get textInMemory(): boolean {
    return this.#text !== null;
  }

  /** Bytes held in memory. */
  get memoryBytes(): number {
    let bytes =
      this.offsets.bytes +
      this.lengths.bytes +
      this.seqs.bytes +
      this.tsMs.bytes +
      this.kinds.bytes +
      this.#trigrams.bytes +
      (this.#text === null ? 0 : this.#text.starts.bytes + this.#text.text.bytes);
    // A map slot, a typed array and the key string each cost about this much besides their data.
    for (const [key, list] of this.#postings) bytes += list.bytes + key.length * 2 + 200;
    return bytes;
  }

  async state(): Promise<FileIndexState> {
    const postings = new Map<string, Uint32Array>();
    for (const [key, list] of this.#postings) postings.set(key, list.view());
    return {
      name: this.name,
      bytes: this.bytes,
      lastLineOffset: this.lastLineOffset,
      lastLineHash: this.lastLineHash,
      offsets: this.offsets.view(),
      lengths: this.lengths.view(),
      seqs: this.seqs.view(),
      tsMs: this.tsMs.view(),
      kinds: this.kinds.view(),
      postings,
      text: await this.#texts(),
    };
  }

  /**
   * The file is complete and saved: its text is read from `source` when a search needs it,
   * and the other columns give back their spare room.
   */
  releaseText(source: TextSource): void {
    this.#text = null;
    this.#textSource = source;
    for (const column of [this.offsets, this.lengths, this.seqs, this.tsMs, this.kinds]) {
      column.trim();
    }
    for (const list of this.#postings.values()) list.trim();
  }

  /** Entries carrying every one of `keys`, ascending; null when `keys` is empty (all of them). */
  carrying(keys: readonly string[]): Uint32Array[] | null {
    if (keys.length === 0) return null;
    const lists: Uint32Array[] = [];
    for (const key of keys) {
      const list = this.#postings.get(key);
      if (list === undefined) return [new Uint32Array(0)];
      lists.push(list.view());
    }
    return lists;
  }

  /** A flag per entry: whether its text holds `needle` (lowercase, no separator). */
  async textMatches(needle: string): Promise<Uint8Array> {
    const flags = new Uint8Array(this.count);
    const bytes = Buffer.from(needle, "utf8");
    if (bytes.length === 0) return flags.fill(1);
    const blocks = this.#trigrams.candidates(bytes);
    // No block can hold it: the text column is not even read.
    if (blocks !== null && blocks.length === 0) return flags;
    const { text, starts } = await this.#texts();
    const perBlock = AUDIT_INDEX_TEXT_BLOCK_ENTRIES;
    const ranges =
      blocks === null
        ? [[0, text.length] as const]
        : blocks.map(
            (block) =>
              [
                starts[block * perBlock] ?? text.length,
                starts[Math.min(this.count, (block + 1) * perBlock)] ?? text.length,
              ] as const,
          );
    for (const [from, to] of ranges) {
      // Searched within the block only: a rare needle must not send each block to the end.
      const part = text.subarray(from, to);
      let at = part.indexOf(bytes);
      while (at !== -1) {
        const entry = entryAt(starts, from + at);
        flags[entry] = 1;
        // The rest of this entry's text cannot add anything: go on from the next entry.
        at = part.indexOf(bytes, (starts[entry + 1] ?? text.length) - from);
      }
    }
    return flags;
  }

  async #texts(): Promise<EntryTexts> {
    if (this.#text !== null)
      return { starts: this.#text.starts.view(), text: this.#text.text.view() };
    if (this.#textSource === null) throw new Error("the index holds no text column");
    return this.#textSource();
  }

  /**
   * Reads the log from where the index stops and adds each complete line. With `signal` (the
   * build at start) it yields to other work every few entries and stops when told to; what it
   * added until then stays whole (a prefix of the file, its last line hashed).
   */
  async extend(file: string, signal?: AbortSignal): Promise<void> {
    if (this.#text === null) {
      // More lines for a file whose text was left on disk: take it back to add to it.
      const { starts, text } = await this.#texts();
      this.#text = {
        starts: new U32Column(starts.slice()),
        text: new ByteColumn(Buffer.from(text)),
      };
      this.#textSource = null;
    }
    const handle = await open(file, "r");
    let last: Buffer | null = null;
    try {
      const size = (await handle.stat()).size;
      let position = this.bytes;
      let rest: Buffer = Buffer.alloc(0);
      while (position < size) {
        const chunk = await readAt(
          handle,
          position,
          Math.min(AUDIT_INDEX_READ_CHUNK_BYTES, size - position),
        );
        if (chunk.length === 0) break;
        const data = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
        const dataStart = position - rest.length;
        position += chunk.length;
        let start = 0;
        let newline = data.indexOf(NEWLINE, start);
        let sinceYield = 0;
        while (newline !== -1) {
          last = data.subarray(start, newline);
          this.#add(last, dataStart + start);
          start = newline + 1;
          newline = data.indexOf(NEWLINE, start);
          if (signal !== undefined && ++sinceYield >= AUDIT_INDEX_BUILD_YIELD_ENTRIES) {
            sinceYield = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
            signal.throwIfAborted();
          }
        }
        rest = data.subarray(start);
      }
    } finally {
      await handle.close();
      if (last !== null) this.lastLineHash = sha256Hex(last);
    }
  }

  /** One complete line at `offset`; lines that are not JSON are passed over (query skips them too). */
  #add(line: Buffer, offset: number): void {
    this.bytes = offset + line.length + 1;
    this.lastLineOffset = offset;
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      return;
    }
    if (typeof value !== "object" || value === null || this.#text === null) return;
    const { seq, ts, kind } = value as { seq?: unknown; ts?: unknown; kind?: unknown };
    if (typeof seq !== "number" || typeof ts !== "string") return;
    const entry = this.count;
    this.offsets.push(offset);
    this.lengths.push(line.length);
    this.seqs.push(seq);
    this.tsMs.push(Date.parse(ts));
    this.kinds.push(
      typeof kind === "string" ? (KIND_CODES.get(kind) ?? UNKNOWN_KIND) : UNKNOWN_KIND,
    );
    for (const key of keysOf(value)) {
      let list = this.#postings.get(key);
      if (list === undefined) {
        list = new U32Column(new Uint32Array(4));
        list.length = 0;
        this.#postings.set(key, list);
      }
      list.push(entry);
    }
    const textStart = this.#text.text.length;
    this.#text.text.append(entryText(value));
    this.#text.starts.push(this.#text.text.length);
    this.#trigrams.add(entry, this.#text.text.view().subarray(textStart));
    this.unsaved += 1;
  }
}

/** The entry whose text holds byte `at`: the last start at or before it. */
function entryAt(starts: Uint32Array, at: number): number {
  let low = 0;
  let high = starts.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

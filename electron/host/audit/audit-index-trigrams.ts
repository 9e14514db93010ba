// A small filter per block of entries saying which three-byte sequences their texts hold, so a
// text search skips (and does not even read) the blocks that cannot hold the needle. It can
// say "maybe" wrongly, never "no" wrongly: a block it passes is still searched byte by byte.

/** Entries per block of the index's text filter (a search skips blocks that cannot match)... */
export const AUDIT_INDEX_TEXT_BLOCK_ENTRIES = 128;

/** ...and the bits of each block's filter (a power of two). */
export const AUDIT_INDEX_TEXT_BLOCK_BITS = 8192;

const BITS = AUDIT_INDEX_TEXT_BLOCK_BITS;
const SHIFT = 32 - Math.log2(BITS);
const SEPARATOR = 0;

function bitOf(a: number, b: number, c: number): number {
  return Math.imul((a << 16) | (b << 8) | c, 2654435761) >>> SHIFT;
}

export class TrigramBlocks {
  readonly #blocks: Uint8Array[] = [];

  /** Adds entry `entry`'s text (UTF-8 bytes) to its block's filter. */
  add(entry: number, text: Uint8Array): void {
    const index = Math.floor(entry / AUDIT_INDEX_TEXT_BLOCK_ENTRIES);
    let block = this.#blocks[index];
    if (block === undefined) {
      block = new Uint8Array(BITS / 8);
      this.#blocks[index] = block;
    }
    for (let i = 0; i + 2 < text.length; i += 1) {
      const a = text[i] ?? 0;
      const b = text[i + 1] ?? 0;
      const c = text[i + 2] ?? 0;
      // A needle never holds the separator, so sequences across it are never asked about.
      if (a === SEPARATOR || b === SEPARATOR || c === SEPARATOR) continue;
      const bit = bitOf(a, b, c);
      block[bit >> 3] = (block[bit >> 3] ?? 0) | (1 << (bit & 7));
    }
  }

  /** Blocks that may hold `needle`, ascending; null when the needle is too short to tell. */
  candidates(needle: Uint8Array): number[] | null {
    if (needle.length < 3) return null;
    const bits: number[] = [];
    for (let i = 0; i + 2 < needle.length; i += 1) {
      bits.push(bitOf(needle[i] ?? 0, needle[i + 1] ?? 0, needle[i + 2] ?? 0));
    }
    const found: number[] = [];
    this.#blocks.forEach((block, index) => {
      if (bits.every((bit) => ((block[bit >> 3] ?? 0) & (1 << (bit & 7))) !== 0)) {
        found.push(index);
      }
    });
    return found;
  }

  get bytes(): number {
    return this.#blocks.length * (BITS / 8 + 64);
  }
}

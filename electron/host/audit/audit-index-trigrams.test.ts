import { describe, expect, it } from "vitest";
import { TrigramBlocks, AUDIT_INDEX_TEXT_BLOCK_ENTRIES } from "./audit-index-trigrams.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

describe("TrigramBlocks", () => {
  it("passes every block holding the needle and, here, none other", () => {
    const blocks = new TrigramBlocks();
    const per = AUDIT_INDEX_TEXT_BLOCK_ENTRIES;
    for (let entry = 0; entry < per * 3; entry += 1) {
      const text = entry === per + 5 ? "call\0needle in a haystack\0" : `call\0city ${entry}\0`;
      blocks.add(entry, bytes(text));
    }
    expect(blocks.candidates(bytes("needle"))).toEqual([1]);
    expect(blocks.candidates(bytes("call"))).toEqual([0, 1, 2]);
    expect(blocks.candidates(bytes("no such text"))).toEqual([]);
    // Too short to tell: every block is searched.
    expect(blocks.candidates(bytes("ne"))).toBeNull();
  });

  it("never pairs bytes across the separator, which a needle cannot hold", () => {
    const blocks = new TrigramBlocks();
    blocks.add(0, bytes("ab\0cd\0"));
    expect(blocks.candidates(bytes("b\0c"))).toEqual([]);
  });
});

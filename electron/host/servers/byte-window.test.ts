import { describe, expect, it } from "vitest";
import { ByteWindow, OUTPUT_BYTES_PER_WINDOW_MAX, OUTPUT_BYTES_WINDOW_MS } from "./byte-window.js";

describe("ByteWindow", () => {
  it("is over once a window holds more than the limit; a new window starts from 0", () => {
    let now = 0;
    const window = new ByteWindow(() => now);
    expect(window.add(OUTPUT_BYTES_PER_WINDOW_MAX)).toBe(false);
    now = OUTPUT_BYTES_WINDOW_MS - 1;
    expect(window.add(1)).toBe(true);
    now = 2 * OUTPUT_BYTES_WINDOW_MS;
    expect(window.add(OUTPUT_BYTES_PER_WINDOW_MAX)).toBe(false);
    expect(window.add(1)).toBe(true);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ OUTPUT_BYTES_PER_WINDOW_MAX, OUTPUT_BYTES_WINDOW_MS }).toEqual({
      OUTPUT_BYTES_PER_WINDOW_MAX: 64 * 1024 * 1024,
      OUTPUT_BYTES_WINDOW_MS: 10_000,
    });
  });
});

import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { ByteWindow } from "./byte-window.js";

describe("ByteWindow", () => {
  it("is over once a window holds more than the limit; a new window starts from 0", () => {
    let now = 0;
    const window = new ByteWindow(() => now);
    expect(window.add(SERVER_LIMITS.outputBytesPerWindowMax)).toBe(false);
    now = SERVER_LIMITS.outputBytesWindowMs - 1;
    expect(window.add(1)).toBe(true);
    now = 2 * SERVER_LIMITS.outputBytesWindowMs;
    expect(window.add(SERVER_LIMITS.outputBytesPerWindowMax)).toBe(false);
    expect(window.add(1)).toBe(true);
  });
});

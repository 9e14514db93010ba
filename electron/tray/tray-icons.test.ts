import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { trayIconPng } from "./tray-icons.js";

describe("tray icons", () => {
  it("are valid PNGs of the asked size, a different colour per state", () => {
    const ready = trayIconPng("ready", 16);
    expect(ready.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(ready.readUInt32BE(16)).toBe(16);
    const idat = ready.indexOf("IDAT");
    const length = ready.readUInt32BE(idat - 4);
    const pixels = inflateSync(ready.subarray(idat + 4, idat + 4 + length));
    expect(pixels.length).toBe(16 * (1 + 16 * 4));
    expect(trayIconPng("private", 16).equals(ready)).toBe(false);
  });
});

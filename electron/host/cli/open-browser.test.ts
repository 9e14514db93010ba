import { describe, expect, it } from "vitest";
import { browserCommand } from "./open-browser.js";

const URL_ = `http://127.0.0.1:4321/#ticket=${"ab".repeat(32)}`;
const has = (): boolean => true;

describe("browserCommand", () => {
  it("is each platform's opener, given the link as one argument", () => {
    expect(browserCommand(URL_, {}, "darwin", has)).toEqual(["open", [URL_]]);
    expect(browserCommand(URL_, {}, "win32", has)).toEqual(["cmd", ["/c", "start", "", URL_]]);
    expect(browserCommand(URL_, { DISPLAY: ":0" }, "linux", has)).toEqual(["xdg-open", [URL_]]);
    expect(browserCommand(URL_, { WAYLAND_DISPLAY: "w" }, "linux", has)).toEqual([
      "xdg-open",
      [URL_],
    ]);
  });

  it("is nothing without a display, without xdg-open, or when told so", () => {
    expect(browserCommand(URL_, {}, "linux", has)).toBeUndefined();
    expect(browserCommand(URL_, { DISPLAY: ":0" }, "linux", () => false)).toBeUndefined();
    expect(browserCommand(URL_, { CODEMODE_NO_BROWSER: "1" }, "darwin", has)).toBeUndefined();
  });
});

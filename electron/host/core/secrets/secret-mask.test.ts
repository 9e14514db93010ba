import { describe, expect, it } from "vitest";
import type { ServerEntry } from "../ports/server-config-types.js";
import {
  SECRET_MARK,
  configSecrets,
  maskDeep,
  maskSecrets,
  secretMasker,
  SECRET_MASK_MIN_CHARS,
} from "./secret-mask.js";

function entry(env: Record<string, string>, secretEnv: string[]): ServerEntry {
  return { command: "x", args: [], env, secretEnv, allow: null, private: false };
}

describe("secret masking", () => {
  it("takes the values of env keys marked secret, from every server", () => {
    const config = {
      servers: new Map([
        [
          "a",
          entry({ KEY: "sk-aaaaaaaa", PLAIN: "not-a-secret-value", SHORT: "1234567", EMPTY: "" }, [
            "KEY",
            "SHORT",
            "EMPTY",
          ]),
        ],
        ["b", entry({ TOKEN: "tok-bbbbbbbbbbbb" }, ["TOKEN"])],
      ]),
    };
    expect(configSecrets(config)).toEqual(["sk-aaaaaaaa", "1234567", "tok-bbbbbbbbbbbb"]);
  });

  it("masks nothing shorter than SECRET_MASK_MIN_CHARS", () => {
    const short = "1234567";
    expect(short).toHaveLength(SECRET_MASK_MIN_CHARS - 1);
    expect(maskSecrets("pin 1234567", [short])).toBe("pin 1234567");
    expect(secretMasker([short, ""])).toBeNull();
    expect(maskSecrets("pin 12345678", ["12345678"])).toBe(`pin ${SECRET_MARK}`);
  });

  it("also masks a secret as JSON escapes it", () => {
    const asJson = JSON.stringify({ echoed: 'pa"ss\\word' });
    expect(maskSecrets(asJson, ['pa"ss\\word'])).toBe(`{"echoed":"${SECRET_MARK}"}`);
  });

  it("replaces only the occurrences, every one, and keeps what is around them", () => {
    const secrets = ["sk-aaaaaaaa", "sk-aaaaaaaa-long"];
    expect(maskSecrets("x sk-aaaaaaaa-long y sk-aaaaaaaa z", secrets)).toBe(
      "x [secret] y [secret] z",
    );
    expect(maskSecrets("nothing here", secrets)).toBe("nothing here");
    expect(
      maskSecrets("https://evil.example/collect?d=c2VjcmV0cw&pad=postgres", ["postgres"]),
    ).toBe("https://evil.example/collect?d=c2VjcmV0cw&pad=[secret]");
  });

  it("leaves no piece of overlapping secrets showing", () => {
    // Two secrets sharing a stretch, and one secret overlapping itself.
    expect(maskSecrets("<abcdefghijkl>", ["abcdefgh", "efghijkl"])).toBe("<[secret]>");
    expect(maskSecrets("<abcabcabcab>", ["abcabcab"])).toBe("<[secret]>");
  });

  it("masks numbers spelled like a secret only when asked (values the code sent)", () => {
    const value = { pin: 43214321, n: 7 };
    expect(maskDeep(value, ["43214321"])).toEqual(value);
    expect(maskDeep(value, ["43214321"], { numbers: true })).toEqual({ pin: SECRET_MARK, n: 7 });
  });

  it("masks keys and strings of a JSON value, numbering keys masked alike", () => {
    const masked = maskDeep(
      { "a sk-aaaaaaaa": 1, "a sk-bbbbbbbb": 2, list: ["k=sk-aaaaaaaa"], n: null },
      ["sk-aaaaaaaa", "sk-bbbbbbbb"],
    );
    expect(masked).toEqual({
      [`a ${SECRET_MARK}`]: 1,
      [`a ${SECRET_MARK}#2`]: 2,
      list: [`k=${SECRET_MARK}`],
      n: null,
    });
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ SECRET_MASK_MIN_CHARS }).toEqual({
      SECRET_MASK_MIN_CHARS: 8,
    });
  });
});

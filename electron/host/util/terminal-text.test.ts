import { describe, expect, it } from "vitest";
import { isUnsafeForTerminal, terminalText } from "./terminal-text.js";

describe("terminalText", () => {
  it("leaves ordinary text, including non-ASCII letters and emoji, as it is", () => {
    for (const text of ["", "toy__add allowed", "café ✓ 日本語 \u{1F600}", 'a "quoted" \\ path']) {
      expect(terminalText(text)).toBe(text);
    }
  });

  it("escapes CR/LF so a name cannot start a forged line", () => {
    expect(terminalText("evil\r\n2026-01-01T00:00:00Z #1 call x allowed")).toBe(
      "evil\\u000d\\u000a2026-01-01T00:00:00Z #1 call x allowed",
    );
  });

  it("escapes terminal escape sequences: OSC 52 clipboard writes, CSI colours, C1 CSI", () => {
    expect(terminalText("\u001b]52;c;aGk=\u0007")).toBe("\\u001b]52;c;aGk=\\u0007");
    expect(terminalText("\u001b[2J\u001b[31mred")).toBe("\\u001b[2J\\u001b[31mred");
    expect(terminalText("\u009b31m")).toBe("\\u009b31m");
    expect(terminalText("\u009d52;c;x\u009c")).toBe("\\u009d52;c;x\\u009c");
    expect(terminalText("a\u007fb\u0000c\tb")).toBe("a\\u007fb\\u0000c\\u0009b");
  });

  it("escapes bidi controls and the Unicode line separators", () => {
    expect(terminalText("file\u202egpj.exe")).toBe("file\\u202egpj.exe");
    for (const code of [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068,
      0x2069, 0x2028, 0x2029,
    ]) {
      expect(terminalText(String.fromCharCode(code))).toBe(
        `\\u${code.toString(16).padStart(4, "0")}`,
      );
    }
  });

  it("escapes what a person could not see: zero-width, tag characters, odd spaces", () => {
    expect(terminalText("send\u{E0041}\u{E0042}")).toBe("send\\udb40\\udc41\\udb40\\udc42");
    expect(terminalText("a\u200bb\u00a0c\ufeff")).toBe("a\\u200bb\\u00a0c\\ufeff");
    // Still JSON: the escapes read back as the same characters.
    const value = { tool: "send\u{E0041}\u200b" };
    expect(JSON.parse(terminalText(JSON.stringify(value)))).toEqual(value);
  });

  it("keeps LF only when asked for multiline text, never CR", () => {
    expect(terminalText("a\nb\r\nc", { multiline: true })).toBe("a\nb\\u000d\nc");
  });

  it("classifies exactly C0, DEL, C1, U+2028/2029 and the bidi controls as unsafe", () => {
    const unsafe: number[] = [];
    for (let code = 0; code <= 0xffff; code++) if (isUnsafeForTerminal(code)) unsafe.push(code);
    const expected = [
      ...Array.from({ length: 0x20 }, (_, i) => i),
      ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
      0x061c,
      0x200e,
      0x200f,
      0x2028,
      0x2029,
      0x202a,
      0x202b,
      0x202c,
      0x202d,
      0x202e,
      0x2066,
      0x2067,
      0x2068,
      0x2069,
    ];
    expect(unsafe).toEqual(expected);
  });

  it("keeps JSON valid: escaping a JSON text yields the same value", () => {
    const value = { name: "x\u009b\u202e\u2028y", nested: ["\u0085"] };
    const printed = terminalText(JSON.stringify(value, null, 2), { multiline: true });
    expect(isUnsafe(printed.replaceAll("\n", ""))).toBe(false);
    expect(JSON.parse(printed)).toEqual(value);
  });
});

function isUnsafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isUnsafeForTerminal(text.charCodeAt(i))) return true;
  return false;
}

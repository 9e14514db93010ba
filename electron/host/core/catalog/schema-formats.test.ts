import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { SCHEMA_FORMATS, linearFormatNames, FORMAT_CHECK_MAX_CHARS } from "./schema-formats.js";

const ajv = new Ajv({ strict: false, logger: false, formats: { ...SCHEMA_FORMATS } });
const check = (format: string, value: unknown): boolean =>
  ajv.validate({ type: "string", format }, value);

describe("format keywords", () => {
  it("are enforced, as a schema's author expects", () => {
    expect(check("email", "someone@example.com")).toBe(true);
    expect(check("email", "not an email")).toBe(false);
    expect(check("date-time", "2026-12-01T21:00:00Z")).toBe(true);
    expect(check("date-time", "2026-13-01T21:00:00Z")).toBe(false);
    expect(check("date", "2026-02-30")).toBe(false);
    expect(check("uri", "https://example.com/a?b=c")).toBe(true);
    expect(check("uri", "no scheme")).toBe(false);
    expect(check("uuid", "123e4567-e89b-12d3-a456-426614174000")).toBe(true);
    expect(check("uuid", "123e4567")).toBe(false);
    expect(check("ipv4", "192.0.2.1")).toBe(true);
    expect(check("ipv4", "192.0.2.256")).toBe(false);
    expect(check("hostname", "example.com")).toBe(true);
    expect(check("duration", "P1DT2H")).toBe(true);
    // Formats apply to strings only.
    expect(ajv.validate({ format: "email" }, 5)).toBe(true);
  });

  it("plain regex formats run on the linear engine, at any length", () => {
    expect(linearFormatNames()).toEqual(
      expect.arrayContaining(["email", "ipv4", "ipv6", "uuid", "uri-reference", "json-pointer"]),
    );
    const long = `/${"a".repeat(FORMAT_CHECK_MAX_CHARS * 4)}`;
    expect(check("json-pointer", long)).toBe(true);
  });

  it("the rest run on strings up to the cap, so their cost stays bounded", () => {
    const atCap = `https://example.com/${"a".repeat(FORMAT_CHECK_MAX_CHARS - 20)}`;
    expect(atCap.length).toBe(FORMAT_CHECK_MAX_CHARS);
    expect(check("uri", atCap)).toBe(true);
    expect(check("uri", `no scheme ${"a".repeat(FORMAT_CHECK_MAX_CHARS - 10)}`)).toBe(false);
  });

  it("a longer string is accepted unchecked, as before formats were enforced", () => {
    // A 3 KB signed URL and a 4,000-character base64 `byte`: honest values over the cap.
    const signed = `https://bucket.example.com/object?X-Signature=${"A".repeat(3_000)}`;
    expect(check("uri", signed)).toBe(true);
    expect(check("byte", "QUJD".repeat(1_000))).toBe(true);
    // Over the cap nothing is checked, not even what would fail at once below it.
    expect(check("date-time", "x".repeat(FORMAT_CHECK_MAX_CHARS + 1))).toBe(true);
    expect(check("date-time", "x".repeat(FORMAT_CHECK_MAX_CHARS))).toBe(false);
  });

  it("url (not a JSON Schema format, quadratic in ajv-formats) is left unchecked", () => {
    expect(Object.keys(SCHEMA_FORMATS)).not.toContain("url");
    expect(check("url", "anything")).toBe(true);
  });
});

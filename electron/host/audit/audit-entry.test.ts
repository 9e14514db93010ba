import { describe, expect, it } from "vitest";
import {
  AUDIT_KINDS,
  GENESIS_PREV,
  auditEntrySchema,
  type AuditEntry,
} from "../../../shared/audit-entry.js";
import { oneOfEachKind } from "../../../test-support/audit-fixtures.js";

const header = { seq: 1, ts: "2026-01-01T00:00:00.000Z", prev: GENESIS_PREV };

describe("the audit entry schema", () => {
  it("has one schema per kind in AUDIT_KINDS, and the fixtures cover them all", () => {
    expect(auditEntrySchema.options.map((option) => option.shape.kind.value)).toEqual([
      ...AUDIT_KINDS,
    ]);
    expect(new Set(oneOfEachKind().map((input) => input.kind))).toEqual(new Set(AUDIT_KINDS));
  });

  it("accepts every kind with its header", () => {
    for (const input of oneOfEachKind()) {
      const entry: AuditEntry = { ...header, ...input };
      expect(auditEntrySchema.safeParse(entry).success).toBe(true);
    }
  });

  it("rejects unknown kinds, bad headers and wrong field types", () => {
    const call = { ...header, ...oneOfEachKind()[2] };
    const cases: unknown[] = [
      { ...call, kind: "something_else" },
      { ...call, seq: 0 },
      { ...call, seq: 1.5 },
      { ...call, ts: "yesterday" },
      { ...call, prev: "abc" },
      { ...call, prev: GENESIS_PREV.toUpperCase().replace(/0/g, "A") },
      { ...call, decision: "maybe" },
      { ...call, argBytes: -1 },
      { ...call, private: "no" },
      { ...header, kind: "auth_refused", reason: "x", transport: "carrier pigeon" },
    ];
    for (const value of cases) expect(auditEntrySchema.safeParse(value).success).toBe(false);
  });

  it("keeps fields a newer version added out of the way instead of failing", () => {
    const parsed = auditEntrySchema.safeParse({ ...header, ...oneOfEachKind()[0], future: 1 });
    expect(parsed.success).toBe(true);
  });
});

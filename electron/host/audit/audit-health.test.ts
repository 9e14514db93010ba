import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { AuditHealth } from "./audit-health.js";

describe("AuditHealth", () => {
  it("refuses until an append succeeds, then records the recovery once", async () => {
    const written: AuditEntryInput[] = [];
    let writable = false;
    let changes = 0;
    const health = new AuditHealth(
      (entry) => {
        if (!writable) return Promise.reject(new Error("EFBIG: file too large"));
        written.push(entry);
        return Promise.resolve();
      },
      () => changes++,
      () => new Date("2026-01-01T00:00:00.000Z"),
    );
    expect(health.error).toBeNull();
    health.failed(new Error("EFBIG: file too large"));
    health.failed(new Error("EFBIG again"));
    expect(health.error).toBe("EFBIG: file too large");
    expect(changes).toBe(1);
    expect(await health.probe()).toBe(false);
    expect(health.error).not.toBeNull();
    writable = true;
    const [a, b] = await Promise.all([health.probe(), health.probe()]);
    expect([a, b]).toEqual([true, true]);
    expect(health.error).toBeNull();
    expect(changes).toBe(2);
    expect(written).toEqual([
      {
        kind: "audit_recovered",
        failedSince: "2026-01-01T00:00:00.000Z",
        error: "EFBIG: file too large",
        lost: 2,
      },
    ]);
  });
});

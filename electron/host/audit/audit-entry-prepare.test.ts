import { describe, expect, it } from "vitest";
import { AUDIT_KINDS, GENESIS_PREV, auditEntrySchema } from "../../../shared/audit-entry.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { AuditLog } from "./audit-log.js";
import { prepareEntry, AUDIT_ERROR_MAX_BYTES } from "./audit-entry-prepare.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { verifyAudit } from "./audit-verify.js";
import {
  allLines,
  callInput,
  oneOfEachKind,
  sha256,
} from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";
import { SECRET_MASK_MIN_CHARS } from "../core/secrets/secret-mask.js";

let dir: string;
useAuditDir((made) => (dir = made));

/** A clock the test moves by hand. */
function manualClock(start: number): { now: () => Date; set: (ms: number) => void } {
  let ms = start;
  return { now: () => new Date(ms), set: (value) => (ms = value) };
}

describe("what an entry becomes before it is written", () => {
  it("scrubs secrets from every text and cuts texts to their limits", async () => {
    const secret = "sk-live-123456";
    const log = await AuditLog.open({ dir, secrets: () => [secret, ""] });
    const code = `key = "${secret}"\n` + "x = 1\n".repeat(5000);
    const started = await log.append({
      kind: "run_started",
      runId: "r1",
      client: "claude",
      code,
      codeBytes: Buffer.byteLength(code),
      codeHash: sha256(code),
    });
    const finished = await log.append({
      kind: "run_finished",
      runId: "r1",
      client: "claude",
      durationMs: 5,
      calls: 0,
      exitCode: 1,
      stopped: null,
      timedOut: false,
      truncated: false,
      error: `401 for key ${secret}: ` + "e".repeat(10_000),
      stdoutBytes: 0,
      stderrBytes: 0,
    });
    await log.close();

    expect(started.kind === "run_started" && Buffer.byteLength(started.code)).toBeLessThanOrEqual(
      AUDIT_LIMITS.codeMaxBytes,
    );
    // Its start and its end are kept, the middle left out.
    expect(started.kind === "run_started" && started.code.startsWith('key = "[secret]"')).toBe(
      true,
    );
    expect(started.kind === "run_started" && started.code.endsWith("x = 1\nx = 1\n")).toBe(true);
    expect(started.kind === "run_started" && started.codeBytes).toBe(Buffer.byteLength(code));
    const error = finished.kind === "run_finished" ? (finished.error ?? "") : "";
    expect(Buffer.byteLength(error)).toBeLessThanOrEqual(AUDIT_ERROR_MAX_BYTES);
    expect(error.startsWith("401 for key [secret]: eee")).toBe(true);
    const onDisk = (await allLines(dir)).join("\n");
    expect(onDisk).not.toContain(secret);
  });

  it("does not let a secret touch hashes or enum values, and masks nothing too short", async () => {
    const log = await AuditLog.open({ dir, secrets: () => ["aaaaaaaa", "abcdefgh", "a", "abc"] });
    const entry = await log.append(callInput(0, { args: '{"x":"abcdefghi","y":"abc"}' }));
    await log.close();
    expect(entry).toMatchObject({
      kind: "call",
      decision: "allowed",
      resultHash: "a".repeat(64),
      args: '{"x":"[secret]i","y":"abc"}',
    });
  });

  it("leaves the entry's own numbers alone when a secret is spelled like one", () => {
    // The host's counts must stay numbers: masked to text, the entry would fail its schema.
    const entry = callInput(0, { resultBytes: 12345678, durationMs: 12345678, argBytes: 12345678 });
    expect(prepareEntry(entry, ["12345678"])).toMatchObject({
      resultBytes: 12345678,
      durationMs: 12345678,
      argBytes: 12345678,
    });
  });

  it("keeps every kind's entry valid whatever secret is set (enum, timestamp and hash fields unscrubbed)", () => {
    // Attack: a secret that is part of an enum value ("call_budget"...) turned it into
    // "[secret]": the entry failed its schema and was lost, and the failed append marked the log
    // failing, refusing runs. Some of these entries come from anyone on this machine:
    // connections_capped and auth_refusals_not_logged from knocking on a port. Secrets shorter
    // than SECRET_MASK_MIN_CHARS are masked nowhere; these are the start of every text of
    // every kind's entry, enum values, timestamps and hashes among them. settings_changed is left
    // out: its setting names are keys of a nested object, scrubbed as text, and only the user
    // changes settings.
    const secrets = new Set<string>();
    for (const entry of oneOfEachKind()) {
      for (const value of Object.values(entry)) {
        const texts = Array.isArray(value) ? value : [value];
        for (const text of texts) {
          if (typeof text === "string" && text.length >= SECRET_MASK_MIN_CHARS) {
            secrets.add(text.slice(0, SECRET_MASK_MIN_CHARS));
          }
        }
      }
    }
    expect(secrets.size).toBeGreaterThan(20);
    const invalid: string[] = [];
    for (const entry of oneOfEachKind()) {
      if (entry.kind === "settings_changed") continue;
      for (const secret of secrets) {
        try {
          prepareEntry(entry, [secret]);
        } catch (error) {
          invalid.push(`${entry.kind} with secret ${JSON.stringify(secret)}: ${String(error)}`);
        }
      }
    }
    expect(invalid).toEqual([]);
  });

  it("refuses an entry that does not match the schema without using up a seq", async () => {
    const log = await AuditLog.open({ dir });
    await log.append(callInput(0));
    const bad = { ...callInput(1), decision: "maybe" } as unknown as ReturnType<typeof callInput>;
    await expect(log.append(bad)).rejects.toThrow(/decision/);
    expect((await log.append(callInput(2))).seq).toBe(2);
    await log.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 2 });
  });

  it("never stamps an entry earlier than the one before, even when the clock goes back", async () => {
    const clock = manualClock(Date.parse("2026-03-01T12:00:00Z"));
    const log = await AuditLog.open({ dir, now: clock.now });
    const a = await log.append(callInput(0));
    clock.set(Date.parse("2026-03-01T10:00:00Z"));
    const b = await log.append(callInput(1));
    clock.set(Date.parse("2026-03-01T12:00:05Z"));
    const c = await log.append(callInput(2));
    await log.close();
    expect([a.ts, b.ts, c.ts]).toEqual([
      "2026-03-01T12:00:00.000Z",
      "2026-03-01T12:00:00.000Z",
      "2026-03-01T12:00:05.000Z",
    ]);
    expect((await verifyAudit(dir)).ok).toBe(true);
  });
});

describe("each entry is checked against its own kind's schema", () => {
  const header = { seq: 1, ts: new Date(0).toISOString(), prev: GENESIS_PREV };
  /** What the union of all kinds says of `input`, as prepareEntry words a refusal. */
  function unionVerdict(input: Record<string, unknown>): string {
    const parsed = auditEntrySchema.safeParse({ ...input, ...header });
    if (parsed.success) return "valid";
    const issue = parsed.error.issues[0];
    return `not a valid audit entry (${issue === undefined ? "" : `${issue.path.join(".")}: ${issue.message}`})`;
  }
  function verdict(input: Record<string, unknown>): string {
    try {
      prepareEntry(input as AuditEntryInput, []);
      return "valid";
    } catch (error) {
      return error instanceof TypeError ? error.message : "threw something else";
    }
  }

  it.each(AUDIT_KINDS)("refuses a bad %s entry as the union of all kinds does", (kind) => {
    // No other field: every kind has required fields, so each is refused for its first one.
    expect(verdict({ kind })).toBe(unionVerdict({ kind }));
    expect(verdict({ kind })).not.toBe("valid");
  });

  it("gives the union's verdict for a call entry, valid or not, and for an unknown kind", () => {
    const good = callInput(1);
    const cases: Record<string, unknown>[] = [
      good,
      { ...good, argBytes: -1 },
      { ...good, resultHash: "not a hash" },
      { ...good, decision: "maybe" },
      { ...good, kind: "no_such_kind" },
      { ...good, kind: 5 },
    ];
    for (const input of cases) expect(verdict(input)).toBe(unionVerdict(input));
    expect(verdict(good)).toBe("valid");
  });

  it("an entry of each kind comes out as the union makes it, field for field, in its order", () => {
    /** The union's output for `input` under a placeholder header, the header taken off. */
    function unionBody(input: Record<string, unknown>): string {
      const parsed = auditEntrySchema.parse({ ...input, ...header }) as Record<string, unknown>;
      const { seq: _seq, ts: _ts, prev: _prev, ...body } = parsed;
      return JSON.stringify(body);
    }
    for (const input of oneOfEachKind()) {
      const extra = { ...input, unknownField: 1, seq: 7, ts: "then", prev: "x" };
      for (const entry of [input, extra] as Record<string, unknown>[]) {
        expect(JSON.stringify(prepareEntry(entry as AuditEntryInput, []))).toBe(unionBody(entry));
      }
    }
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import {
  RefusalLimiter,
  AUTH_REFUSALS_PER_MINUTE,
  AUTH_REFUSAL_WINDOW_MS,
} from "./refusal-limiter.js";

const LIMIT = AUTH_REFUSALS_PER_MINUTE;
const WINDOW = AUTH_REFUSAL_WINDOW_MS;
const SUFFIX = " more refused before, not logged one by one)";

/** The refusals an entry stands for: itself, the count a logged one's reason carries, or a count. */
function refusalsIn(entry: AuditEntryInput): number {
  if (entry.kind === "auth_refusals_not_logged") return entry.count;
  if (entry.kind !== "auth_refused") return 0;
  const at = entry.reason.indexOf(" (and ");
  if (at < 0 || !entry.reason.endsWith(SUFFIX)) return 1;
  return 1 + Number(entry.reason.slice(at + " (and ".length, -SUFFIX.length));
}

describe("RefusalLimiter", () => {
  afterEach(() => vi.useRealTimers());
  const refused = { kind: "auth_refused", reason: "wrong token", transport: "socket" } as const;

  it("logs up to the limit a window, counts the first left out at once, and the rest in the next logged", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const limiter = new RefusalLimiter(
      (entry) => entries.push(entry),
      () => now,
    );
    for (let i = 0; i < LIMIT + 3; i++) limiter.refused(refused);
    expect(entries.filter((e) => e.kind === "auth_refused")).toHaveLength(LIMIT);
    expect(entries.at(-1)).toEqual({
      kind: "auth_refusals_not_logged",
      count: 1,
      transports: ["socket"],
    });

    now += WINDOW + 1;
    limiter.refused(refused);
    limiter.refused(refused);
    expect(entries.slice(-2).map((e) => e.kind === "auth_refused" && e.reason)).toEqual([
      "wrong token (and 2 more refused before, not logged one by one)",
      "wrong token",
    ]);
    limiter.flush();
    expect(entries.map(refusalsIn).reduce((a, b) => a + b)).toBe(LIMIT + 5);
  });

  it("writes the count of refusals left out at the first, then each window while more come, and at the stop; none twice", () => {
    // Attack: knock with a wrong token far past the rate, then stop knocking (or have the app
    // killed, or stopped). The count waited in memory for the next refusal logged, which never
    // came: the log showed 30 knocks where there were thousands.
    vi.useFakeTimers();
    const entries: AuditEntryInput[] = [];
    const limiter = new RefusalLimiter((entry) => entries.push(entry));
    let knocks = 0;
    const knock = (transport: "socket" | "http" | "ws" = "socket") => {
      knocks++;
      limiter.refused({ ...refused, transport });
    };
    const counts = () => entries.filter((e) => e.kind === "auth_refusals_not_logged");
    const onRecord = () => entries.map(refusalsIn).reduce((a, b) => a + b, 0);

    // A burst past the rate, then silence: on the record with no later refusal.
    for (let i = 0; i < LIMIT + 1; i++) knock();
    expect(onRecord()).toBe(knocks);
    expect(counts()).toEqual([
      { kind: "auth_refusals_not_logged", count: 1, transports: ["socket"] },
    ]);

    // Knocking on, on two transports: at most one count entry a window, none in between.
    for (let i = 0; i < 500; i++) knock(i % 2 === 0 ? "http" : "ws");
    expect(counts()).toHaveLength(1);
    vi.advanceTimersByTime(WINDOW - 1);
    expect(counts()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(counts().at(-1)).toEqual({
      kind: "auth_refusals_not_logged",
      count: 500,
      transports: ["http", "ws"],
    });
    expect(onRecord()).toBe(knocks);

    // Knocking for five more windows, 100 a second: the windows roll, LIMIT a window are
    // logged one by one (the first of each telling what was left out since the last count).
    const windowsBefore = counts().length;
    for (let second = 0; second < (5 * WINDOW) / 1000; second++) {
      for (let i = 0; i < 100; i++) knock();
      vi.advanceTimersByTime(1000);
    }
    expect(counts().length - windowsBefore).toBeLessThanOrEqual(5);
    expect(counts().length - windowsBefore).toBeGreaterThanOrEqual(4);

    // The stop: the rest (the window is full, so at least 7 are left out and not all written
    // yet), then no timer left; a flush with nothing left writes nothing.
    for (let i = 0; i < LIMIT + 7; i++) knock();
    const before = onRecord();
    expect(before).toBeLessThan(knocks);
    limiter.flush();
    expect(vi.getTimerCount()).toBe(0);
    const flushed = entries.length;
    limiter.flush();
    expect(entries).toHaveLength(flushed);
    // Every knock is on the record exactly once: none lost, none counted twice.
    expect(onRecord()).toBe(knocks);
  });

  it("writes nothing more once a quiet window ends the ticking", () => {
    vi.useFakeTimers();
    const entries: AuditEntryInput[] = [];
    const limiter = new RefusalLimiter((entry) => entries.push(entry));
    for (let i = 0; i < LIMIT + 1; i++) limiter.refused(refused);
    vi.advanceTimersByTime(WINDOW);
    expect(vi.getTimerCount()).toBe(0);
    limiter.flush();
    expect(entries).toHaveLength(LIMIT + 1);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ AUTH_REFUSALS_PER_MINUTE, AUTH_REFUSAL_WINDOW_MS }).toEqual({
      AUTH_REFUSALS_PER_MINUTE: 30,
      AUTH_REFUSAL_WINDOW_MS: 60_000,
    });
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { ClientAuditLog, ClientEntryLimiter } from "./client-entry-limiter.js";

describe("ClientEntryLimiter", () => {
  const limit = HOST_LIMITS.clientEntriesLogged;

  it("logs connections up to the limit a window; the next one logged counts the rest", () => {
    let now = 1_000_000;
    const limiter = new ClientEntryLimiter(() => now);
    for (let i = 0; i < limit; i++) expect(limiter.connected(`c${i}`)).toBe(0);
    expect(limiter.connected("over1")).toBeNull();
    expect(limiter.connected("over2")).toBeNull();
    // Leaving is logged only for a connection whose coming was.
    expect(limiter.disconnected("c0")).toBe(true);
    expect(limiter.disconnected("c0")).toBe(false);
    expect(limiter.disconnected("over1")).toBe(false);
    expect(limiter.disconnected("never-connected")).toBe(false);

    now += HOST_LIMITS.clientEntriesWindowMs;
    expect(limiter.connected("next")).toBe(2);
    expect(limiter.connected("after")).toBe(0);
  });

  it("gives the count not yet logged once, for the app's stop to write", () => {
    const limiter = new ClientEntryLimiter(() => 0);
    for (let i = 0; i < limit + 3; i++) limiter.connected(`c${i}`);
    expect(limiter.takeNotLogged()).toBe(3);
    expect(limiter.takeNotLogged()).toBe(0);
  });
});

describe("ClientAuditLog", () => {
  afterEach(() => vi.useRealTimers());

  it("writes the count of connections left out at the first, then each interval, not only at the stop", () => {
    // Attack: connect past the limit and have the app killed (or crash) before the next
    // connection logged: the count waited in memory for that or for the stop, and was lost.
    vi.useFakeTimers();
    const entries: AuditEntryInput[] = [];
    const log = new ClientAuditLog((entry) => entries.push(entry));
    const view = (i: number) => ({ name: "loop", version: "1", connectionId: `c${i}` });
    const notLogged = () =>
      entries.flatMap((e) => (e.kind === "clients_not_logged" ? [e.count] : []));
    for (let i = 0; i < HOST_LIMITS.clientEntriesLogged; i++) log.connected(view(i));
    expect(notLogged()).toEqual([]);
    log.connected(view(1000));
    expect(notLogged()).toEqual([1]);
    for (let i = 1001; i < 1006; i++) log.connected(view(i));
    expect(notLogged()).toEqual([1]);
    vi.advanceTimersByTime(HOST_LIMITS.clientsNotLoggedFlushMs);
    expect(notLogged()).toEqual([1, 5]);
    // A quiet interval stops the ticking; the next one left out is written at once again.
    vi.advanceTimersByTime(HOST_LIMITS.clientsNotLoggedFlushMs);
    expect(vi.getTimerCount()).toBe(0);
    log.connected(view(2000));
    expect(notLogged()).toEqual([1, 5, 1]);
    log.connected(view(2001));
    log.flush();
    expect(notLogged()).toEqual([1, 5, 1, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

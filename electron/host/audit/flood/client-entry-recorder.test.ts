import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { ClientEntryRecorder, CLIENTS_NOT_LOGGED_FLUSH_MS } from "./client-entry-recorder.js";
import { CLIENT_ENTRIES_LOGGED } from "./client-entry-limiter.js";

describe("ClientEntryRecorder", () => {
  afterEach(() => vi.useRealTimers());

  it("writes the count of connections left out at the first, then each interval, not only at the stop", () => {
    // Attack: connect past the limit and have the app killed (or crash) before the next
    // connection logged: the count waited in memory for that or for the stop, and was lost.
    vi.useFakeTimers();
    const entries: AuditEntryInput[] = [];
    const log = new ClientEntryRecorder((entry) => entries.push(entry));
    const view = (i: number) => ({ name: "loop", version: "1", connectionId: `c${i}` });
    const notLogged = () =>
      entries.flatMap((e) => (e.kind === "clients_not_logged" ? [e.count] : []));
    for (let i = 0; i < CLIENT_ENTRIES_LOGGED; i++) log.connected(view(i));
    expect(notLogged()).toEqual([]);
    log.connected(view(1000));
    expect(notLogged()).toEqual([1]);
    for (let i = 1001; i < 1006; i++) log.connected(view(i));
    expect(notLogged()).toEqual([1]);
    vi.advanceTimersByTime(CLIENTS_NOT_LOGGED_FLUSH_MS);
    expect(notLogged()).toEqual([1, 5]);
    // A quiet interval stops the ticking; the next one left out is written at once again.
    vi.advanceTimersByTime(CLIENTS_NOT_LOGGED_FLUSH_MS);
    expect(vi.getTimerCount()).toBe(0);
    log.connected(view(2000));
    expect(notLogged()).toEqual([1, 5, 1]);
    log.connected(view(2001));
    log.flush();
    expect(notLogged()).toEqual([1, 5, 1, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ CLIENTS_NOT_LOGGED_FLUSH_MS }).toEqual({
      CLIENTS_NOT_LOGGED_FLUSH_MS: 60_000,
    });
  });
});

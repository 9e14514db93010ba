import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { ClientEntryRecorder } from "./client-entry-recorder.js";

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

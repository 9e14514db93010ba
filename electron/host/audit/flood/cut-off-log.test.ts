import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import {
  BROWSER_UI_CLIENT,
  CutOffLog,
  CUT_OFF_ENTRIES_LOGGED,
  CUT_OFF_WINDOW_MS,
} from "./cut-off-log.js";

describe("CutOffLog", () => {
  afterEach(() => vi.useRealTimers());

  it("logs cut-offs up to the bound a window, then counts the rest in the next one", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const log = new CutOffLog(
      (entry) => entries.push(entry),
      () => now,
    );
    const over = HOST_LIMITS.socketUnreadMaxBytes + 1;
    for (let i = 0; i < CUT_OFF_ENTRIES_LOGGED + 2; i++) {
      log.socket({ name: "hoarder", connectionId: `c${i}` }, over);
    }
    // The first one left out is counted at once (the next test), the second in the next one.
    expect(entries.filter((e) => e.kind === "client_cut_off")).toHaveLength(CUT_OFF_ENTRIES_LOGGED);
    expect(entries.at(-1)).toEqual({ kind: "cut_offs_not_logged", count: 1 });
    expect(entries[0]).toEqual({
      kind: "client_cut_off",
      transport: "socket",
      client: "hoarder",
      connectionId: "c0",
      unreadBytes: over,
      limitBytes: HOST_LIMITS.socketUnreadMaxBytes,
    });
    now += CUT_OFF_WINDOW_MS;
    log.ws(HOST_LIMITS.wsUnreadMaxBytes + 5);
    expect(entries.at(-1)).toEqual({
      kind: "client_cut_off",
      transport: "ws",
      client: BROWSER_UI_CLIENT,
      connectionId: null,
      unreadBytes: HOST_LIMITS.wsUnreadMaxBytes + 5,
      limitBytes: HOST_LIMITS.wsUnreadMaxBytes,
      notLogged: 1,
    });
    log.flush();
  });
  it("writes the count of cut-offs left out at the first, then each window while more are, and at the stop", () => {
    // Attack: be cut off CUT_OFF_ENTRIES_LOGGED times in a minute, so that a real client cut off
    // after it is only counted, in the next one logged, which may never come: the count (and
    // the fact) waited in memory, and a stop or a kill lost it.
    vi.useFakeTimers();
    const entries: AuditEntryInput[] = [];
    const log = new CutOffLog((entry) => entries.push(entry));
    const over = HOST_LIMITS.socketUnreadMaxBytes + 1;
    const cutOff = (client: string) => log.socket({ name: client, connectionId: client }, over);
    const counted = () =>
      entries.flatMap((e) => (e.kind === "cut_offs_not_logged" ? [e.count] : []));
    for (let i = 0; i < CUT_OFF_ENTRIES_LOGGED; i++) cutOff(`hoarder${i}`);
    cutOff("real-client");
    expect(counted()).toEqual([1]);
    cutOff("more1");
    cutOff("more2");
    vi.advanceTimersByTime(CUT_OFF_WINDOW_MS);
    expect(counted()).toEqual([1, 2]);
    // A quiet window stops the ticking; nothing is counted twice on the next one logged.
    vi.advanceTimersByTime(CUT_OFF_WINDOW_MS);
    expect(vi.getTimerCount()).toBe(0);
    cutOff("later");
    expect(entries.at(-1)).toMatchObject({ kind: "client_cut_off", client: "later" });
    expect(entries.at(-1)).not.toHaveProperty("notLogged");
    // "later" and these fill the next window, and one is left out: written at once again.
    for (let i = 0; i < CUT_OFF_ENTRIES_LOGGED; i++) cutOff(`again${i}`);
    expect(counted()).toEqual([1, 2, 1]);
    cutOff("last");
    log.flush();
    expect(counted()).toEqual([1, 2, 1, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ CUT_OFF_ENTRIES_LOGGED, CUT_OFF_WINDOW_MS }).toEqual({
      CUT_OFF_ENTRIES_LOGGED: 30,
      CUT_OFF_WINDOW_MS: 60_000,
    });
  });
});

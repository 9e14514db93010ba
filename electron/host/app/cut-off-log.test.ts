import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../shared/limits.js";
import { BROWSER_UI_CLIENT, CutOffLog } from "./cut-off-log.js";

describe("CutOffLog", () => {
  it("logs cut-offs up to the bound a window, then counts the rest in the next one", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const log = new CutOffLog(
      (entry) => entries.push(entry),
      () => now,
    );
    const over = HOST_LIMITS.socketUnreadMaxBytes + 1;
    for (let i = 0; i < HOST_LIMITS.cutOffEntriesLogged + 2; i++) {
      log.socket({ name: "hoarder", connectionId: `c${i}` }, over);
    }
    expect(entries).toHaveLength(HOST_LIMITS.cutOffEntriesLogged);
    expect(entries[0]).toEqual({
      kind: "client_cut_off",
      transport: "socket",
      client: "hoarder",
      connectionId: "c0",
      unreadBytes: over,
      limitBytes: HOST_LIMITS.socketUnreadMaxBytes,
    });
    now += HOST_LIMITS.cutOffWindowMs;
    log.ws(HOST_LIMITS.wsUnreadMaxBytes + 5);
    expect(entries.at(-1)).toEqual({
      kind: "client_cut_off",
      transport: "ws",
      client: BROWSER_UI_CLIENT,
      connectionId: null,
      unreadBytes: HOST_LIMITS.wsUnreadMaxBytes + 5,
      limitBytes: HOST_LIMITS.wsUnreadMaxBytes,
      notLogged: 2,
    });
  });
});

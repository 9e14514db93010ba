import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import {
  ConnectionCapLog,
  CONNECTION_CAP_WINDOW_MS,
  CONNECTION_CAP_EPISODES_LOGGED,
} from "./connection-cap-log.js";

/**
 * What a ConnectionCap tells its log (the real cap and servers: the int test): connections
 * opened up to the cap, one ending, one the cap closes to admit another.
 */
function fakeCap(log: ConnectionCapLog) {
  let open = 0;
  return {
    connect: () => {
      open++;
    },
    closeOne: () => {
      open--;
      log.ended(open);
    },
    drop: () => log.closedOne(),
  };
}

describe("ConnectionCapLog", () => {
  it("logs reaching the cap and clearing it, then only counts a loop of them past the bound", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const log = new ConnectionCapLog(
      "ui",
      (entry) => entries.push(entry),
      () => now,
    );
    const fake = fakeCap(log);
    for (let i = 0; i < HOST_LIMITS.httpConnectionsMax; i++) fake.connect();
    // Attack: hold the cap, let one go, take it back, and be refused once more, in a loop.
    const turns = CONNECTION_CAP_EPISODES_LOGGED + 3;
    for (let turn = 0; turn < turns; turn++) {
      fake.drop();
      fake.drop();
      now += 10;
      fake.closeOne();
      fake.connect();
    }
    expect(entries).toHaveLength(2 * CONNECTION_CAP_EPISODES_LOGGED);
    expect(entries[0]).toEqual({
      kind: "connections_capped",
      server: "ui",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 1,
    });
    expect(entries[1]).toEqual({
      kind: "connections_uncapped",
      server: "ui",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 1,
      durationMs: 10,
    });
    // The next window: the times left out, and the connections they refused, are counted.
    now += CONNECTION_CAP_WINDOW_MS;
    fake.drop();
    expect(entries.at(-1)).toEqual({
      kind: "connections_capped",
      server: "ui",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 3 * 2 + 1,
      notLogged: 3,
    });
  });
  it("logs a hold of the cap that began past the bound once the window has room, with its whole length", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const log = new ConnectionCapLog(
      "mcp_http",
      (entry) => entries.push(entry),
      () => now,
    );
    const fake = fakeCap(log);
    for (let i = 0; i < HOST_LIMITS.httpConnectionsMax; i++) fake.connect();
    // Attack: use up the window with short turns at the cap...
    for (let turn = 0; turn < CONNECTION_CAP_EPISODES_LOGGED; turn++) {
      fake.drop();
      now += 10;
      fake.closeOne();
      fake.connect();
    }
    expect(entries).toHaveLength(2 * CONNECTION_CAP_EPISODES_LOGGED);
    // ... then reach it once more and hold it: this time is left out, the window being full.
    fake.drop();
    const heldFrom = now;
    expect(entries).toHaveLength(2 * CONNECTION_CAP_EPISODES_LOGGED);
    // A real client refused once the window has room again: the lockout is on the record now,
    // not only once it ends (it may never) or the next time the cap is reached.
    now += CONNECTION_CAP_WINDOW_MS;
    fake.drop();
    expect(entries.at(-1)).toEqual({
      kind: "connections_capped",
      server: "mcp_http",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 2,
    });
    fake.drop();
    expect(entries).toHaveLength(2 * CONNECTION_CAP_EPISODES_LOGGED + 1);
    // Its clearing says how long the lockout really lasted, from when the cap was reached.
    now += 5_000;
    fake.closeOne();
    expect(entries.at(-1)).toEqual({
      kind: "connections_uncapped",
      server: "mcp_http",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 1,
      durationMs: now - heldFrom,
    });
    // Logged after all, that time is not counted as left out on the next one.
    now += CONNECTION_CAP_WINDOW_MS;
    fake.connect();
    fake.drop();
    expect(entries.at(-1)).not.toHaveProperty("notLogged");
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ CONNECTION_CAP_EPISODES_LOGGED, CONNECTION_CAP_WINDOW_MS }).toEqual({
      CONNECTION_CAP_EPISODES_LOGGED: 5,
      CONNECTION_CAP_WINDOW_MS: 60_000,
    });
  });
});

import { EventEmitter } from "node:events";
import type { Server } from "node:net";
import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../shared/limits.js";
import { ConnectionCapLog } from "./connection-cap-log.js";

/** A server's connection events, as net.Server emits them (the real one: the int test). */
function fakeServer() {
  const server = new EventEmitter();
  const sockets: EventEmitter[] = [];
  return {
    server: server as unknown as Server,
    connect: () => {
      const socket = new EventEmitter();
      sockets.push(socket);
      server.emit("connection", socket);
    },
    closeOne: () => sockets.pop()?.emit("close"),
    drop: () => server.emit("drop"),
  };
}

describe("ConnectionCapLog", () => {
  it("logs reaching the cap and clearing it, then only counts a loop of them past the bound", () => {
    let now = 1_000_000;
    const entries: AuditEntryInput[] = [];
    const fake = fakeServer();
    new ConnectionCapLog(
      "ui",
      (entry) => entries.push(entry),
      () => now,
    ).watch(fake.server);
    for (let i = 0; i < HOST_LIMITS.httpConnectionsMax; i++) fake.connect();
    // Attack: hold the cap, let one go, take it back, and be refused once more, in a loop.
    const turns = HOST_LIMITS.connectionCapEpisodesLogged + 3;
    for (let turn = 0; turn < turns; turn++) {
      fake.drop();
      fake.drop();
      now += 10;
      fake.closeOne();
      fake.connect();
    }
    expect(entries).toHaveLength(2 * HOST_LIMITS.connectionCapEpisodesLogged);
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
    now += HOST_LIMITS.connectionCapWindowMs;
    fake.drop();
    expect(entries.at(-1)).toEqual({
      kind: "connections_capped",
      server: "ui",
      max: HOST_LIMITS.httpConnectionsMax,
      refused: 3 * 2 + 1,
      notLogged: 3,
    });
  });
});

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import type { ClientView } from "../../../../shared/api/api-views.js";
import { ClientSessions, CLIENTS_CHANGED_MIN_INTERVAL_MS } from "./client-sessions.js";
import type { RunPythonService } from "./run-python-server.js";
import { SOCKET_MESSAGE_MAX_BYTES } from "./socket-transport.js";

const service: RunPythonService = {
  description: () => "run Python",
  onCatalogChange: () => () => undefined,
  run: () => Promise.reject(new Error("no runs here")),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ClientSessions' clients.changed", () => {
  it("reaches the UI at most once per interval while clients come and go in a loop, the last list always", async () => {
    const pages: ClientView[][] = [];
    const sessions = new ClientSessions(service, "1", {
      connected: () => undefined,
      disconnected: () => undefined,
      changed: (views) => pages.push(views),
    });
    const CLIENTS = 40;
    const clients: Client[] = [];
    const started = performance.now();
    for (let i = 0; i < CLIENTS; i++) {
      const [clientSide, hostSide] = InMemoryTransport.createLinkedPair();
      await sessions.attach(hostSide, "socket");
      const client = new Client({ name: `client-${i}`, version: "1" });
      await client.connect(clientSide);
      clients.push(client);
    }
    await sleep(CLIENTS_CHANGED_MIN_INTERVAL_MS * 2);
    const connectedIn = performance.now() - started;
    // One emission per interval at most (and one at once), not one per connection.
    expect(pages.length).toBeLessThanOrEqual(
      Math.ceil(connectedIn / CLIENTS_CHANGED_MIN_INTERVAL_MS) + 1,
    );
    expect(pages.length).toBeLessThan(CLIENTS);
    expect(pages.at(-1)?.map((view) => view.name)).toHaveLength(CLIENTS);
    expect(pages.at(-1)?.every((view) => view.name.startsWith("client-"))).toBe(true);

    await Promise.all(clients.map((client) => client.close()));
    await sleep(CLIENTS_CHANGED_MIN_INTERVAL_MS * 2);
    expect(pages.at(-1)).toEqual([]);
    await sessions.closeAll();
  });

  it("tells a lone change at once", async () => {
    const pages: ClientView[][] = [];
    const sessions = new ClientSessions(service, "1", {
      connected: () => undefined,
      disconnected: () => undefined,
      changed: (views) => pages.push(views),
    });
    const [clientSide, hostSide] = InMemoryTransport.createLinkedPair();
    await sessions.attach(hostSide, "http");
    const client = new Client({ name: "alone", version: "1" });
    await client.connect(clientSide);
    // No wait: the first change since start goes out as it happens.
    expect(pages.at(-1)?.map((view) => view.name)).toEqual(["alone"]);
    await client.close();
    await sessions.closeAll();
  });

  it("tells a change within the interval even when the wall clock went back meanwhile", async () => {
    // An NTP correction or a user setting the clock: the wait was computed from wall times, so
    // a clock set back an hour held the next list for an hour.
    let wall = Date.parse("2026-12-04T12:00:00Z");
    const pages: ClientView[][] = [];
    const sessions = new ClientSessions(
      service,
      "1",
      {
        connected: () => undefined,
        disconnected: () => undefined,
        changed: (views) => pages.push(views),
      },
      () => new Date(wall),
    );
    const [firstSide, firstHost] = InMemoryTransport.createLinkedPair();
    await sessions.attach(firstHost, "http");
    const first = new Client({ name: "first", version: "1" });
    await first.connect(firstSide);
    wall -= 3_600_000;
    const [secondSide, secondHost] = InMemoryTransport.createLinkedPair();
    await sessions.attach(secondHost, "http");
    const second = new Client({ name: "second", version: "1" });
    await second.connect(secondSide);
    await sleep(CLIENTS_CHANGED_MIN_INTERVAL_MS * 2);
    expect(
      pages
        .at(-1)
        ?.map((view) => view.name)
        .sort(),
    ).toEqual(["first", "second"]);
    await Promise.all([first.close(), second.close()]);
    await sessions.closeAll();
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ SOCKET_MESSAGE_MAX_BYTES }).toEqual({
      SOCKET_MESSAGE_MAX_BYTES: 4 * 1024 * 1024,
    });
  });
});

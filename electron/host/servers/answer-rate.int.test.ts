// An honest server that answers fast is not stopped as a flood: the message meter counts what a
// server sends unasked, not its answers to the host's own requests. A run gathering thousands of
// calls to a fast tool has a real server answer ~6,000 a second; metered like notifications,
// it was stopped after ~7,000 answers (the burst and a second of refill), failing the rest.
// A real stdio server process; no Docker needed.
import { afterAll, beforeAll, expect, it } from "vitest";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../../../test-servers/toy-server.js";
import { singleServerConfig } from "./config/server-config.js";
import { ServerSet } from "./server-set.js";
import { MESSAGES_BURST_MAX } from "./rate-bucket.js";

const CALLS = 2 * MESSAGES_BURST_MAX;
const IN_FLIGHT = 64;

let servers: ServerSet;

beforeAll(async () => {
  assertToyServerBuilt();
  const config = singleServerConfig(process.execPath, [TOY_SERVER_JS], {
    allow: ["echo"],
    private: [],
    env: {},
  });
  servers = new ServerSet(config);
  await servers.open();
});

afterAll(async () => {
  await servers.close();
});

it("answers to the host's calls as fast as the server gives them are not a flood", async () => {
  const signal = new AbortController().signal;
  let started = 0;
  const errors: string[] = [];
  async function caller(): Promise<void> {
    while (started < CALLS) {
      started++;
      try {
        await servers.callTool("server", "echo", { text: "hi" }, { signal, timeoutMs: 30_000 });
      } catch (error) {
        errors.push(String(error));
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, caller));
  expect(errors.slice(0, 1)).toEqual([]);
  expect(servers.get("server")?.info.lastError ?? null).toBeNull();
}, 60_000);

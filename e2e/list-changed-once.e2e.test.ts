// One config change reaches a connected client as exactly one tools/list_changed: a client
// re-lists on each notification, and two per change (the config rebuild, then the server's
// own tools event) doubled that work and read as two changes.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { listsTool } from "../test-support/described-tools.js";

const fx = await dockerOrSkip();

/** Long enough for a second notification of the same change to arrive if one were sent. */
const SETTLE_MS = 1500;
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

describe.skipIf(!fx)("tools/list_changed, counted by a real SDK client over the shim", () => {
  const home = makeHome();
  let host: CodeModeHost;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
    ({ host } = await startHostInProcess(home));
  });

  afterAll(async () => {
    if (host) await stopHostInProcess(host);
  });

  it("sends exactly one notification when a server is added and one when it is removed", async () => {
    const shim = await connectShim(home, { name: "list-changed-counter", version: "1" });
    try {
      await settle();
      const start = shim.listChangedCount();

      await api(host, "servers.upsert", {
        name: "toy2",
        entry: { command: process.execPath, args: [TOY_SERVER_JS] },
      });
      await until(async () => listsTool(await shim.description(), "toy2", "add"), "toy2 listed");
      await settle();
      expect(shim.listChangedCount() - start).toBe(1);

      const afterAdd = shim.listChangedCount();
      await api(host, "servers.remove", { name: "toy2" });
      await until(async () => !listsTool(await shim.description(), "toy2", "add"), "toy2 gone");
      await settle();
      expect(shim.listChangedCount() - afterAdd).toBe(1);
    } finally {
      await shim.close();
    }
  });
});

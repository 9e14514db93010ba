// SKILL.md is offered over MCP as a prompt and as a resource, by `codemode serve` and by the
// app's run_python server (reached through the shim), read by a real SDK Client.

import { readFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { packageRoot } from "../electron/host/util/paths.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { startServe, TOY_COMMAND } from "../test-support/serve-client.js";

const fx = await dockerOrSkip();
const SKILL = readFileSync(path.join(packageRoot(), "skills", "codemode", "SKILL.md"), "utf8");

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

async function expectGuideOffered(client: Client): Promise<void> {
  expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, resources: {} });
  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toEqual(["codemode"]);
  const prompt = await client.getPrompt({ name: "codemode" });
  expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: SKILL } }]);

  const { resources } = await client.listResources();
  expect(resources).toHaveLength(1);
  const uri = resources[0]!.uri;
  const read = await client.readResource({ uri });
  expect(read.contents).toEqual([{ uri, mimeType: "text/markdown", text: SKILL }]);

  await expect(client.getPrompt({ name: "other" })).rejects.toThrow(/unknown prompt "other"/);
  await expect(client.readResource({ uri: "file:///etc/passwd" })).rejects.toThrow(
    /unknown resource/,
  );
}

describe.skipIf(!fx)("SKILL.md over MCP", () => {
  it("codemode serve offers it as a prompt and a resource", async () => {
    const serve = await startServe({ args: ["--", ...TOY_COMMAND] });
    try {
      await expectGuideOffered(serve.client);
    } finally {
      await serve.close();
    }
  });

  describe("the app, through the shim", () => {
    const home = makeHome();
    let host: CodeModeHost;

    beforeAll(async () => {
      writeServers(home, { toy: toyServer() });
      ({ host } = await startHostInProcess(home));
    });

    afterAll(async () => {
      if (host) await stopHostInProcess(host);
    });

    it("offers it as a prompt and a resource", async () => {
      const shim = await connectShim(home, { name: "skill-reader", version: "1" });
      try {
        await expectGuideOffered(shim.client);
      } finally {
        await shim.close();
      }
    });
  });
});

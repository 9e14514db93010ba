// Named workspaces through the app's faces: clients on the shim and on Streamable HTTP keep
// files and saved values between runs, apart from each other; a file a run attaches is read
// back by its own client only; a workspace holding private data makes the next run private;
// what code writes after its run's end is kept only within the limit, and the next run is told;
// and the audit log, with the workspace's entries, still verifies. `codemode serve` keeps its
// one client's workspaces in the same data directory.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { runResultIn, type RunResult } from "../shared/run-result.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  untilServerReady,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { freePort } from "../test-support/free-port.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { startServe, tempHome, TOY_COMMAND } from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";

const fx = await dockerOrSkip();

/** The `/workspace` folder (on the host) of the slot in use that holds `file`. */
function slotHolding(home: string, file: string): string {
  const slots = path.join(home, "slots");
  for (const owner of readdirSync(slots)) {
    for (const slot of readdirSync(path.join(slots, owner))) {
      const ws = path.join(slots, owner, slot, "ws");
      if (existsSync(path.join(ws, file))) return ws;
    }
  }
  throw new Error(`no slot holds ${file}`);
}

/** run_python with a workspace, its RunResult and content. */
async function run(
  client: Client,
  code: string,
  workspace?: string,
): Promise<{ result: RunResult; content: CallToolResult["content"] }> {
  const answer = (await client.callTool({
    name: "run_python",
    arguments: workspace === undefined ? { code } : { code, workspace },
  })) as CallToolResult;
  const result = runResultIn(answer);
  if (result === undefined) throw new Error(`no run result: ${JSON.stringify(answer)}`);
  return { result, content: answer.content };
}

describe.skipIf(!fx)("workspaces through the app", () => {
  const home = makeHome();
  let host: CodeModeHost;
  let alice: McpSession;
  let bob: McpSession;
  let carol: Client;

  beforeAll(async () => {
    assertToyServerBuilt();
    assertHostBuilt();
    const port = await freePort();
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ httpEnabled: true, httpPort: port, warmPoolSize: 1 }),
    );
    writeServers(home, { toy: toyServer(), secret: toyServer({ private: true }) });
    ({ host } = await startHostInProcess(home));
    await untilServerReady(host, "toy");
    await untilServerReady(host, "secret");
    alice = await connectShim(home, { name: "alice", version: "1" });
    bob = await connectShim(home, { name: "bob", version: "1" });
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    carol = new Client({ name: "carol", version: "1" });
    await carol.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  });

  afterAll(async () => {
    await carol?.close();
    await alice?.close();
    await bob?.close();
    if (host) await stopHostInProcess(host);
    await cleanUpHosts(fx?.docker);
  });

  it("two clients with the same workspace name stay apart", async () => {
    const wrote = await run(alice.client, "open('/workspace/a.txt','w').write('alice')", "w");
    expect(wrote.result.workspace).toMatchObject({ name: "w", kept: true, filesChanged: 1 });
    const other = await run(bob.client, "import os\nprint(os.listdir('/workspace'))", "w");
    expect(other.result.stdout).toBe("[]\n");
    const again = await run(alice.client, "print(open('/workspace/a.txt').read())", "w");
    expect(again.result.stdout).toBe("alice\n");
  });

  it("save() and load() across runs over Streamable HTTP", async () => {
    const saved = await run(
      carol,
      "import pandas as pd\nsave('df', pd.DataFrame({'x': range(1000)}))",
      "frames",
    );
    expect(saved.result.error).toBeNull();
    const loaded = await run(carol, "print(int(load('df')['x'].sum()))", "frames");
    expect(loaded.result.stdout).toBe("499500\n");
    const none = await run(carol, "save('a', 1)");
    expect(none.result.error).toContain('workspace="NAME"');
  });

  it("an attached file comes back as a link its own client reads byte for byte", async () => {
    const { result, content } = await run(
      alice.client,
      "open('/workspace/chart.csv','wb').write(bytes(range(256)) * 4)\nattach('/workspace/chart.csv')",
      "w",
    );
    expect(result.error).toBeNull();
    const text = content.find((item) => item.type === "text");
    expect(text?.type === "text" && text.text).toContain("[files, attached as links");
    const link = content.find((item) => item.type === "resource_link");
    expect(link).toMatchObject({ name: "chart.csv", mimeType: "text/csv", size: 1024 });
    const uri = link?.type === "resource_link" ? link.uri : "";
    expect(uri.startsWith("codemode://files/")).toBe(true);
    const read = await alice.client.readResource({ uri });
    const blob = read.contents[0] && "blob" in read.contents[0] ? read.contents[0].blob : "";
    const expected = Buffer.alloc(1024).map((_, i) => i % 256);
    expect(Buffer.from(blob, "base64").equals(expected)).toBe(true);
    await expect(bob.client.readResource({ uri })).rejects.toThrow(/no file/);
  });

  it("a workspace holding private data makes the next run private", async () => {
    const dora = await connectShim(home, { name: "dora", version: "1" });
    try {
      const tainted = await run(
        dora.client,
        "r = await secret__add({'a': 1, 'b': 2})\nopen('/workspace/r.txt','w').write(str(r))",
        "p",
      );
      expect(tainted.result.error).toBeNull();
      expect(tainted.result.workspace?.private).toBe(true);
      // The user clears the client: the workspace still holds what the private tool gave.
      await api(host, "taint.reset", { client: "dora" });
      const next = await run(dora.client, "print(await toy__add({'a': 1, 'b': 1}))", "p");
      expect(next.result.error).toContain('opened the workspace "p"');
      const plain = await run(dora.client, "print(await toy__add({'a': 1, 'b': 1}))");
      expect(plain.result.error).toContain("refused");
    } finally {
      await dora.close();
    }
  });

  it("code writing past the limit after its run's end: nothing kept, logged, the next run told", async () => {
    const erin = await connectShim(home, { name: "erin", version: "1" });
    await api(host, "settings.save", { workspaceMaxMiB: 1 });
    try {
      await run(erin.client, "open('/workspace/keep.txt','w').write('kept')", "late");
      // The code ends its run as the host sees it (a done line of its own), and a thread it
      // left writes 3 MiB once the test, having the answer, puts `go` in the slot.
      const answered = await run(
        erin.client,
        [
          "import os, threading, time",
          "open('/workspace/late-marker','w').write('m')",
          "def late():",
          "    while not os.path.exists('/workspace/go'):",
          "        time.sleep(0.01)",
          "    open('/workspace/big.bin','wb').write(b'x' * (3 * 1024 * 1024))",
          "writer = threading.Thread(target=late)",
          "writer.start()",
          "for fd in range(3, 64):",
          "    try:",
          '        os.write(fd, b\'{"type": "done", "error": null}\\n\')',
          "    except OSError:",
          "        pass",
          "writer.join()",
          "os._exit(0)",
        ].join("\n"),
        "late",
      );
      expect(answered.result.error).toBeNull();
      expect(answered.result.workspace).toMatchObject({ kept: true, files: 2 });
      writeFileSync(path.join(slotHolding(home, "late-marker"), "go"), "");
      const next = await run(
        erin.client,
        "import os\nprint(sorted(os.listdir('/workspace')))",
        "late",
      );
      expect(next.result.stdout).toBe("['keep.txt']\n");
      const text = next.content.find((item) => item.type === "text");
      expect(text?.type === "text" && text.text).toContain(
        '[workspace: the previous run\'s code wrote to the workspace "late" after that run ended',
      );
      await host.auditDurable();
      const differed = auditEntries(home, "workspace_keep_differed");
      expect(differed).toHaveLength(1);
      expect(differed[0]).toMatchObject({
        client: "erin",
        workspace: "late",
        kept: false,
        answered: { kept: true, files: 2 },
        now: { kept: false, files: 1 },
      });
    } finally {
      await api(host, "settings.save", { workspaceMaxMiB: 1024 });
      await erin.close();
    }
  });

  it("the audit log names each run's workspace, and verifies", async () => {
    await host.auditDurable();
    const finished = auditEntries(home, "run_finished").filter((e) => e.workspace !== undefined);
    expect(finished.length).toBeGreaterThan(0);
    expect(finished[0]!.workspace).toMatchObject({ name: "w", kept: true, filesChanged: 1 });
    const attached = auditEntries(home, "run_finished").flatMap((e) => e.files ?? []);
    expect(attached.map((f) => f.name)).toEqual(["chart.csv"]);
    expect(auditEntries(home, "taint_set").some((e) => e.workspace === "p")).toBe(true);
    expect(await api(host, "audit.verify", {})).toMatchObject({ ok: true });
  });
});

describe.skipIf(!fx)("workspaces through codemode serve", () => {
  afterAll(() => removeTempDirs());

  it("keeps a workspace between serve processes, and reads back an attached file", async () => {
    const { home } = tempHome();
    const first = await startServe({ args: ["--", ...TOY_COMMAND], home });
    try {
      const saved = await run(first.client, "save('n', {'k': [1, 2]})", "s");
      expect(saved.result.workspace).toMatchObject({ name: "s", kept: true });
    } finally {
      await first.close();
    }
    const second = await startServe({ args: ["--", ...TOY_COMMAND], home });
    try {
      const { result, content } = await run(
        second.client,
        "print(load('n'))\nopen('/tmp/o.txt','w').write('out')\nattach('/tmp/o.txt')",
        "s",
      );
      expect(result.stdout).toBe("{'k': [1, 2]}\n");
      const link = content.find((item) => item.type === "resource_link");
      const uri = link?.type === "resource_link" ? link.uri : "";
      const read = await second.client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ mimeType: "text/plain" });
      const blob = read.contents[0] && "blob" in read.contents[0] ? read.contents[0].blob : "";
      expect(Buffer.from(blob, "base64").toString()).toBe("out");
    } finally {
      await second.close();
    }
  });
});

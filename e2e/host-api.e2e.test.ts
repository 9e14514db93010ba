// The shared host driven through its typed API while real MCP clients use it: the host
// runs in this process (so the API is one `dispatchApi` call away, as every transport makes
// it), and each client is the SDK's Client spawning `codemode shim` as a process of its own.

import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../shared/audit-entry.js";
import type { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  auditFiles,
  cleanUpHosts,
  connectShim,
  homeContainers,
  makeHome,
  pidAlive,
  runCli,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { PY_PRELUDE } from "../test-support/serve-client.js";
import { listsTool } from "../test-support/described-tools.js";

const fx = await dockerOrSkip();

type Outcomes = Record<string, string>;

const refused = (tool: string, privateTool: string): string =>
  `ToolError: "${tool}" refused: this client called the private tool "${privateTool}", so only ` +
  "private tools can be called; only the user can change that, in Code Mode.";

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

/** Runs `PY_PRELUDE + code` and parses the JSON it printed last. */
async function outcomes(
  shim: { run(code: string): Promise<{ stdout: string; error: string | null }> },
  code: string,
): Promise<Outcomes> {
  const result = await shim.run(`${PY_PRELUDE}\n${code}`);
  if (result.error !== null) throw new Error(`the code failed: ${JSON.stringify(result)}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as Outcomes;
}

async function allEntries(host: CodeModeHost): Promise<AuditEntry[]> {
  const { entries } = await api(host, "audit.query", { filter: {}, limit: 1000 });
  return [...entries].reverse();
}

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// every test runs code in the sandbox image, which needs the engine.
describe.skipIf(!fx)("the host's clients and its live config, through the typed API", () => {
  const home = makeHome();
  let host: CodeModeHost;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
    ({ host } = await startHostInProcess(home));
  });

  afterAll(async () => {
    if (host) await stopHostInProcess(host);
    if (fx) expect(await homeContainers(fx.docker, home)).toEqual([]);
  });

  it("serves two clients at once: both runs are in flight together, both get their results, and clients.list names both", async () => {
    const alpha = await connectShim(home, { name: "client-alpha", version: "1.0.0" });
    const beta = await connectShim(home, { name: "client-beta", version: "2.5.0" });
    const code = (n: number): string =>
      `import asyncio\nawait asyncio.sleep(1.5)\nprint(await toy__add({"a": ${n}, "b": 1}))`;
    const runs = Promise.all([alpha.run(code(10)), beta.run(code(20))]);
    // Awaited below; a failure before that must not also surface as an unhandled rejection.
    runs.catch(() => undefined);
    // Both sessions report a run in progress at the same moment: they really overlap.
    await until(async () => {
      const list = (await api(host, "clients.list", {})).items;
      return list.filter((c) => c.running === 1).length === 2;
    }, "both clients to be running at once");
    const [a, b] = await runs;
    expect(a.stdout).toBe('{"sum":11}\n');
    expect(b.stdout).toBe('{"sum":21}\n');

    const list = (await api(host, "clients.list", {})).items;
    expect(
      list.map((c) => ({ name: c.name, version: c.version, transport: c.transport, runs: c.runs })),
    ).toEqual(
      expect.arrayContaining([
        { name: "client-alpha", version: "1.0.0", transport: "socket", runs: 1 },
        { name: "client-beta", version: "2.5.0", transport: "socket", runs: 1 },
      ]),
    );
    expect(list).toHaveLength(2);
    await alpha.close();
    await until(async () => (await api(host, "clients.list", {})).total === 1, "alpha to leave");
    expect((await api(host, "clients.list", {})).items[0]?.name).toBe("client-beta");
    await beta.close();
  });

  it("applies a config edit live: the connected client gets tools/list_changed, sees the new tools, and keeps working on the same connection", async () => {
    const shim = await connectShim(home, { name: "live-editor", version: "1" });
    // Found by name: the client of the test before may not be gone from the list yet.
    const liveEditor = async () =>
      (await api(host, "clients.list", {})).items.find((c) => c.name === "live-editor");
    const session = await liveEditor();
    expect(session).toBeDefined();
    expect(listsTool(await shim.description(), "toy2", "add")).toBe(false);

    // A second server, added through the API while the client is connected.
    let seen = shim.listChangedCount();
    await api(host, "servers.upsert", {
      name: "toy2",
      entry: { command: process.execPath, args: [TOY_SERVER_JS] },
    });
    await until(() => shim.listChangedCount() > seen, "tools/list_changed after adding toy2");
    expect(listsTool(await shim.description(), "toy2", "add")).toBe(true);
    const both = await shim.run(
      'print(await toy2__add({"a": 1, "b": 2}))\nprint(await toy__add({"a": 3, "b": 4}))',
    );
    expect(both.stdout).toBe('{"sum":3}\n{"sum":7}\n');

    // Narrowing the first server's allowlist: its other tools leave the description.
    seen = shim.listChangedCount();
    expect(listsTool(await shim.description(), "toy", "send")).toBe(true);
    await api(host, "servers.upsert", {
      name: "toy",
      entry: { command: process.execPath, args: [TOY_SERVER_JS], allow: ["add", "echo"] },
    });
    await until(() => shim.listChangedCount() > seen, "tools/list_changed after allow");
    const description = await shim.description();
    expect(listsTool(description, "toy", "send")).toBe(false);
    expect(listsTool(description, "toy", "echo")).toBe(true);
    expect((await shim.run('print(await toy__echo({"text": "still here"}))')).stdout).toBe(
      "still here\n",
    );

    // Never dropped: the same connection, the same shim process, all along.
    const after = await liveEditor();
    expect(after?.connectionId).toBe(session?.connectionId);
    expect(pidAlive(shim.pid)).toBe(true);
    const changes = (await allEntries(host)).filter((e) => e.kind === "config_changed");
    expect(changes.map((e) => e.kind === "config_changed" && e.summary)).toEqual([
      "server toy2 saved",
      "server toy saved",
    ]);
    // Saved for the next start, too.
    const saved = JSON.parse(await readFile(`${home}/servers.json`, "utf8")) as {
      mcpServers: Record<string, { allow?: string[] }>;
    };
    expect(Object.keys(saved.mcpServers).sort()).toEqual(["toy", "toy2"]);
    expect(saved.mcpServers.toy?.allow).toEqual(["add", "echo"]);
    await shim.close();
  });
});

// Skipped without a Docker engine outside CI, as above: the runs need the sandbox image.
describe.skipIf(!fx)("taint is per client name and outlives the connection", () => {
  const home = makeHome();
  let host: CodeModeHost;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer({ private: ["read_secret"] }) });
    ({ host } = await startHostInProcess(home));
  });

  afterAll(async () => {
    if (host) await stopHostInProcess(host);
    if (fx) expect(await homeContainers(fx.docker, home)).toEqual([]);
  });

  it("taints only the client that read private data, across its reconnects, until taint.reset", async () => {
    const a = await connectShim(home, { name: "client-a", version: "1" });
    const b = await connectShim(home, { name: "client-b", version: "1" });
    expect(
      await outcomes(
        a,
        `print(json.dumps({
    "secret": await attempt(toy__read_secret()),
    "echo": await attempt(toy__echo({"text": "after"})),
}))`,
      ),
    ).toEqual({
      secret: "ok: the secret is 42",
      echo: refused("toy__echo", "toy__read_secret"),
    });
    const echo = `print(json.dumps({"echo": await attempt(toy__echo({"text": "hello"}))}))`;
    // Another client, same host, same moment: untouched.
    expect(await outcomes(b, echo)).toEqual({ echo: "ok: hello" });
    expect((await api(host, "taint.list", {})).items.map((t) => [t.client, t.pyName])).toEqual([
      ["client-a", "toy__read_secret"],
    ]);

    // What the model read is still in its conversation: reconnecting does not clean it.
    await a.close();
    const again = await connectShim(home, { name: "client-a", version: "1" });
    expect(await outcomes(again, echo)).toEqual({
      echo: refused("toy__echo", "toy__read_secret"),
    });

    expect((await api(host, "taint.reset", { client: "client-a" })).items).toEqual([]);
    expect(await outcomes(again, echo)).toEqual({ echo: "ok: hello" });

    const entries = await allEntries(host);
    expect(
      entries.filter((e) => e.kind === "taint_set").map((e) => e.kind === "taint_set" && e.client),
    ).toEqual(["client-a"]);
    expect(
      entries
        .filter((e) => e.kind === "taint_reset")
        .map((e) => e.kind === "taint_reset" && [e.client, e.previousTool]),
    ).toEqual([["client-a", "toy__read_secret"]]);
    await Promise.all([again.close(), b.close()]);
  });
});

describe.skipIf(!fx)(
  "every run and every call is in the audit log, and verify catches edits",
  () => {
    const home = makeHome();
    let host: CodeModeHost | undefined;

    afterAll(async () => {
      if (host) await stopHostInProcess(host);
      if (fx) expect(await homeContainers(fx.docker, home)).toEqual([]);
    });

    it("logs 3 runs and 4 calls (one refused) exactly, exports them, verifies, and names an edited or removed entry", async () => {
      writeServers(home, { toy: toyServer() });
      ({ host } = await startHostInProcess(home));
      const shim = await connectShim(home, { name: "auditor", version: "7" });
      await shim.run('print(await toy__add({"a": 1, "b": 2}))');
      const second = await outcomes(
        shim,
        `print(json.dumps({
    "bad": await attempt(toy__add({"a": 1, "b": "two"})),
    "echo": await attempt(toy__echo({"text": "x"})),
}))`,
      );
      expect(second.bad).toMatch(/^ToolError: /);
      expect(second.echo).toBe("ok: x");
      await shim.run('print(await toy__add({"a": 5, "b": 5}))\nprint("done")');
      await shim.close();
      await until(
        async () => (await allEntries(host!)).some((e) => e.kind === "client_disconnected"),
        "client_disconnected",
      );

      const count = async (filter: Record<string, unknown>): Promise<number> =>
        (await api(host!, "audit.query", { filter, limit: 1000 })).entries.length;
      expect({
        connected: await count({ kinds: ["client_connected"] }),
        runStarted: await count({ kinds: ["run_started"] }),
        runFinished: await count({ kinds: ["run_finished"] }),
        calls: await count({ kinds: ["call"] }),
        allowed: await count({ kinds: ["call"], decision: "allowed" }),
        refusedCalls: await count({ kinds: ["call"], decision: "refused" }),
        disconnected: await count({ kinds: ["client_disconnected"] }),
      }).toEqual({
        connected: 1,
        runStarted: 3,
        runFinished: 3,
        calls: 4,
        allowed: 3,
        refusedCalls: 1,
        disconnected: 1,
      });

      // The CLI's export, read while the host still runs, holds the same entries.
      const exported = await runCli(home, ["audit", "export"]);
      expect(exported.code).toBe(0);
      const lines = exported.stdout.trim().split("\n");
      const kinds = lines.map((line) => (JSON.parse(line) as AuditEntry).kind);
      expect(kinds.filter((k) => k === "run_started")).toHaveLength(3);
      expect(kinds.filter((k) => k === "run_finished")).toHaveLength(3);
      expect(kinds.filter((k) => k === "call")).toHaveLength(4);
      expect(lines).toHaveLength((await allEntries(host)).length);
      expect(exported.stderr).toContain(`exported ${lines.length} entries`);

      const ok = await runCli(home, ["audit", "verify"]);
      expect(ok.stdout).toContain(`ok: ${lines.length} entries`);
      expect(ok.code).toBe(0);

      // Nothing writes the log from here on.
      await stopHostInProcess(host);
      host = undefined;
      const [file, ...more] = auditFiles(home);
      expect(more).toEqual([]);
      const original = await readFile(file!, "utf8");
      const fileLines = original.split("\n");
      const refusedIndex = fileLines.findIndex((l) => l.includes('"decision":"refused"'));
      const refusedSeq = (JSON.parse(fileLines[refusedIndex]!) as AuditEntry).seq;
      expect(refusedIndex).toBeLessThan(fileLines.length - 2);

      // One character changed inside the refused call's entry: still valid JSON and schema.
      const edited = [...fileLines];
      edited[refusedIndex] = fileLines[refusedIndex]!.replace(
        '"tool":"toy__add"',
        '"tool":"toy__adD"',
      );
      expect(edited[refusedIndex]).not.toBe(fileLines[refusedIndex]);
      await writeFile(file!, edited.join("\n"));
      const broken = await runCli(home, ["audit", "verify"]);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toContain(`line ${refusedIndex + 1} (seq ${refusedSeq})`);
      expect(broken.stdout).toContain("changed after it was written");

      await writeFile(file!, original);
      expect((await runCli(home, ["audit", "verify"])).code).toBe(0);

      // One line removed (the entry after the refused call): a gap in the chain.
      const removed = fileLines.filter((_, i) => i !== refusedIndex + 1);
      await writeFile(file!, removed.join("\n"));
      const gap = await runCli(home, ["audit", "verify"]);
      expect(gap.code).toBe(1);
      expect(gap.stdout).toContain(`expected seq ${refusedSeq + 1} but found ${refusedSeq + 2}`);
      expect(gap.stdout).toContain("missing");
      await writeFile(file!, original);
    });
  },
);

// ServerSet against real toy-server subprocesses: all-or-nothing open, routing,
// aggregated events, live replace and close.

import { textOf, until } from "../../../test-support/wait.js";
import { pidAlive } from "../util/process-place.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../../../test-support/toy-build.js";
import type { ServerEntry, ServersConfig } from "../core/ports/server-config-types.js";
import type { ToolCaller } from "../core/ports/tool-caller.js";
import { ServerSet } from "./server-set.js";
import { ServerStartError, WrappedServerError, type WrappedServer } from "./wrapped-server.js";

const sets: ServerSet[] = [];

beforeAll(() => {});

afterEach(async () => {
  await Promise.all(sets.splice(0).map((set) => set.close()));
});

function toyEntry(env: Record<string, string> = {}, extra: Partial<ServerEntry> = {}): ServerEntry {
  return {
    command: process.execPath,
    args: [TOY_SERVER_UNIT_JS],
    env,
    secretEnv: [],
    allow: null,
    private: false,
    ...extra,
  };
}

function config(entries: Record<string, ServerEntry>): ServersConfig {
  return { servers: new Map(Object.entries(entries)) };
}

function makeSet(entries: Record<string, ServerEntry>): ServerSet {
  const set = new ServerSet(config(entries));
  sets.push(set);
  return set;
}

function callOpts(): { signal: AbortSignal; timeoutMs: number } {
  return { signal: new AbortController().signal, timeoutMs: 5_000 };
}

function pidOf(set: ServerSet, name: string): number {
  const pid = set.get(name)?.pid;
  if (pid === undefined || pid === null) throw new Error(`server ${name} has no process`);
  return pid;
}

function names(tools: readonly { name: string }[]): string[] {
  return tools.map((t) => t.name);
}

describe("ServerSet", () => {
  it("opens every server and routes each call to the server it names", async () => {
    const set = makeSet({ a: toyEntry(), b: toyEntry({ TOY_TOOL_PREFIX: "b_" }) });
    await set.open();
    expect([...set.servers.keys()]).toEqual(["a", "b"]);
    expect([...set.servers.values()].map((s) => s.status)).toEqual(["ready", "ready"]);
    expect(names(set.tools.get("a") ?? [])).toContain("echo");
    expect(names(set.tools.get("b") ?? [])).toContain("b_echo");

    // The bridge sees only the ToolCaller interface.
    const caller: ToolCaller = set;
    expect(textOf(await caller.callTool("a", "echo", { text: "to a" }, callOpts()))).toBe("to a");
    expect(textOf(await caller.callTool("b", "b_echo", { text: "to b" }, callOpts()))).toBe("to b");
    const unknown = await caller.callTool("nope", "echo", {}, callOpts()).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(WrappedServerError);
    expect((unknown as WrappedServerError).code).toBe("unknown-server");
  });

  it("gives the catalog builder each server's tools with its allow and private policy", async () => {
    const set = makeSet({
      notes: toyEntry({}, { allow: ["echo", "read_secret"], private: ["read_secret"] }),
    });
    await set.open();
    const [notes] = set.serverTools();
    expect(notes).toMatchObject({
      server: "notes",
      allow: ["echo", "read_secret"],
      private: ["read_secret"],
    });
    expect(names(notes?.tools ?? [])).toContain("read_secret");
  });

  it("a failing entry closes the servers already open; the error names it and its last stderr lines", async () => {
    const set = makeSet({
      good: toyEntry(),
      // Fails only after a delay, so "good" is surely up and has a process to close.
      bad: toyEntry({ TOY_FAIL_START: "1", TOY_START_DELAY_MS: "1000" }),
    });
    let goodPid: number | null = null;
    set.on("status", (server, state) => {
      if (server === "good" && state.status === "ready") goodPid = set.get("good")?.pid ?? null;
    });
    const error = await set.open().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServerStartError);
    const startError = error as ServerStartError;
    expect(startError.server).toBe("bad");
    expect(startError.message).toContain('Server "bad" failed to start');
    expect(startError.message).toContain("toy server: TOY_FAIL_START=1, giving up");
    expect(startError.stderrTail).toContain(
      "toy server: TOY_FAIL_START=1, giving up before connecting",
    );

    expect(goodPid).not.toBeNull();
    await until(() => !pidAlive(goodPid!), "the good server's process to exit");
    expect(set.get("good")?.status).toBe("stopped");
    await expect(set.replace(config({}))).rejects.toThrow(/closed/);
  });

  it("forwards a server's tool-list change with the server's name", async () => {
    const set = makeSet({ a: toyEntry(), b: toyEntry() });
    await set.open();
    const changed = new Promise<[string, string[]]>((resolveChange) => {
      set.on("tools", (server, tools) => resolveChange([server, names(tools)]));
    });
    await set.callTool("b", "add_tool", { name: "fresh" }, callOpts());
    const [server, tools] = await changed;
    expect(server).toBe("b");
    expect(tools).toContain("fresh");
    expect(names(set.tools.get("b") ?? [])).toContain("fresh");
    expect(names(set.tools.get("a") ?? [])).not.toContain("fresh");
  });

  it("replace restarts only changed entries: unchanged and policy-only changes keep their process", async () => {
    const set = makeSet({
      same: toyEntry(),
      policy: toyEntry(),
      changed: toyEntry({ VERSION: "1" }),
      gone: toyEntry(),
    });
    await set.open();
    const before = {
      same: pidOf(set, "same"),
      policy: pidOf(set, "policy"),
      changed: pidOf(set, "changed"),
      gone: pidOf(set, "gone"),
    };
    const toolEvents: [string, number][] = [];
    set.on("tools", (server, tools) => toolEvents.push([server, tools.length]));

    const result = await set.replace(
      config({
        added: toyEntry(),
        same: toyEntry(),
        changed: toyEntry({ VERSION: "2" }),
        policy: toyEntry({}, { private: true }),
      }),
    );

    expect(result).toEqual({
      added: ["added"],
      restarted: ["changed"],
      updated: ["policy"],
      unchanged: ["same"],
      removed: ["gone"],
      failed: [],
    });
    expect([...set.servers.keys()]).toEqual(["added", "same", "changed", "policy"]);
    expect(pidOf(set, "same")).toBe(before.same);
    expect(pidOf(set, "policy")).toBe(before.policy);
    expect(set.get("policy")?.entry.private).toBe(true);
    expect(pidOf(set, "changed")).not.toBe(before.changed);
    expect(pidAlive(before.changed)).toBe(false);
    expect(pidAlive(before.gone)).toBe(false);
    expect(set.get("gone")).toBeUndefined();
    expect(textOf(await set.callTool("changed", "env", { name: "VERSION" }, callOpts()))).toBe("2");
    expect(textOf(await set.callTool("added", "echo", { text: "new" }, callOpts()))).toBe("new");
    await expect(set.callTool("gone", "echo", { text: "x" }, callOpts())).rejects.toThrow(
      /No server named "gone"/,
    );

    // The catalog hears of: the removed server (no tools), the restarted one (emptied,
    // then listed again), the policy change, and the new server's list.
    expect(toolEvents).toEqual(
      expect.arrayContaining([
        ["gone", 0],
        ["changed", 0],
        ["changed", 12],
        ["policy", 12],
        ["added", 12],
      ]),
    );
    expect(toolEvents.some(([server]) => server === "same")).toBe(false);
  });

  it("replace reports a new entry that fails to start and leaves the others running", async () => {
    const set = makeSet({ a: toyEntry() });
    await set.open();
    const pid = pidOf(set, "a");
    const result = await set.replace(
      config({ a: toyEntry(), broken: toyEntry({ TOY_FAIL_START: "1" }) }),
    );
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]?.server).toBe("broken");
    expect(result.failed[0]?.error).toContain("TOY_FAIL_START=1");
    expect(set.get("broken")?.status).toBe("failed");
    expect(pidOf(set, "a")).toBe(pid);
    expect(set.get("a")?.status).toBe("ready");
  });

  it("replace with onStartFailed does not wait for slow starts and reports only failures of servers still in the set", async () => {
    const set = makeSet({ a: toyEntry() });
    await set.open();
    const failures: { server: string; error: string }[] = [];
    const onStartFailed = (failure: { server: string; error: string }): void => {
      failures.push(failure);
    };
    const startedAt = Date.now();
    const result = await set.replace(
      config({
        a: toyEntry(),
        slow: toyEntry({ TOY_START_DELAY_MS: "8000" }),
        broken: toyEntry({ TOY_FAIL_START: "1" }),
        dropped: toyEntry({ TOY_START_DELAY_MS: "8000" }),
      }),
      { onStartFailed },
    );
    // Saving is not held by the slow starts: the replace resolved while they are starting.
    expect(Date.now() - startedAt).toBeLessThan(6_000);
    expect(result.added).toEqual(["slow", "broken", "dropped"]);
    expect(result.failed).toEqual([]);
    expect(set.get("slow")?.status).toBe("starting");

    // The next edit does not wait for them either, and takes one out while it starts (its
    // close takes the SDK's grace for a child that does not read its input: ~2 s).
    await set.replace(
      config({
        a: toyEntry(),
        slow: toyEntry({ TOY_START_DELAY_MS: "8000" }),
        broken: toyEntry({ TOY_FAIL_START: "1" }),
      }),
      { onStartFailed },
    );
    expect(Date.now() - startedAt).toBeLessThan(6_000);

    await until(() => set.get("slow")?.status === "ready", "the slow server to start", 15_000);
    await until(() => failures.length > 0, "the broken server's failure", 10_000);
    expect(failures.map((f) => f.server)).toEqual(["broken"]);
    expect(failures[0]?.error).toContain("TOY_FAIL_START=1");
    expect(set.get("broken")?.status).toBe("failed");
    expect(textOf(await set.callTool("slow", "echo", { text: "up" }, callOpts()))).toBe("up");
  });

  it("replace with onStartFailed: a start superseded by the restart button is no failure, and one taken out leaves no process", async () => {
    const set = makeSet({});
    await set.open();
    const failures: string[] = [];
    const onStartFailed = (failure: { server: string; error: string }): void => {
      failures.push(`${failure.server}: ${failure.error}`);
    };
    await set.replace(
      config({
        restarted: toyEntry({ TOY_START_DELAY_MS: "3000" }),
        dropped: toyEntry({ TOY_START_DELAY_MS: "3000" }),
      }),
      { onStartFailed },
    );
    const dropped = pidOf(set, "dropped");
    // The user presses Restart while the start runs: the server starts (again), it did not fail.
    await set.get("restarted")?.restart();
    expect(set.get("restarted")?.status).toBe("ready");
    await set.replace(config({ restarted: toyEntry({ TOY_START_DELAY_MS: "3000" }) }), {
      onStartFailed,
    });
    // Taken out while starting: its process is stopped with it, not left to finish its start.
    expect(pidAlive(dropped)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(failures).toEqual([]);
  });

  it("replace on an empty set is a tolerant open", async () => {
    const set = makeSet({});
    await set.open();
    const result = await set.replace(config({ a: toyEntry(), b: toyEntry() }));
    expect(result.added).toEqual(["a", "b"]);
    expect([...set.servers.values()].every((s: WrappedServer) => s.status === "ready")).toBe(true);
  });

  it("close stops every server and leaves no process behind", async () => {
    const set = makeSet({ a: toyEntry(), b: toyEntry() });
    await set.open();
    const pids = [pidOf(set, "a"), pidOf(set, "b")];
    await set.close();
    await until(() => pids.every((pid) => !pidAlive(pid)), "both children to exit");
    expect([...set.servers.values()].map((s) => s.status)).toEqual(["stopped", "stopped"]);
    const refused = await set
      .callTool("a", "echo", { text: "x" }, callOpts())
      .catch((e: unknown) => e);
    expect((refused as WrappedServerError).code).toBe("closed");
  });
});

// A wrapped server's whole process tree ends with it: at a stop, a restart and the end of a
// Try it, also what the server started (a `sleep` in the background of `sh -c`, the real server
// behind an npx-like wrapper that ignores its closed stdin and SIGTERM). Real processes; POSIX
// only (process groups).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { descendantPids, processGroupOf, processRunning } from "../../../test-support/processes.js";
import { stubbornEntry, stubbornPids } from "../../../test-support/stubborn-server.js";
import { TOY_SERVER_UNIT_JS } from "../../../test-support/toy-build.js";
import { until } from "../../../test-support/wait.js";
import { closeStarted, toy, track } from "../../../test-support/wrapped-server-fixtures.js";
import { ServerProcessTransport } from "./server-process-transport.js";
import { ServerSet } from "./server-set.js";
import { tryServer } from "./try-server.js";
import { WrappedServer } from "./wrapped-server.js";
import { STOP_STDIN_GRACE_MS, STOP_TERM_GRACE_MS } from "./process-tree.js";

let workDir: string;
let files = 0;
const left: number[] = [];
const pidFiles: string[] = [];

/** A new pid file in this test's folder: what its processes write there is killed after it. */
function pidFileFor(name: string): string {
  const file = join(workDir, `${files++}-${name}.pid`);
  pidFiles.push(file);
  return file;
}

/** Waits until none of `pids` runs; every pid of a test is killed after it either way. */
async function untilGone(pids: number[], what: string): Promise<void> {
  left.push(...pids);
  await until(() => pids.every((pid) => !processRunning(pid)), what);
}

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "process-tree-test-"));
});

afterEach(async () => {
  await closeStarted();
  for (const pid of [...left.splice(0), ...pidFiles.splice(0).flatMap(stubbornPids)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe("a wrapped server's process tree", () => {
  it("a Try it of `sh -c 'sleep 777 & exec cat'` leaves no `sleep 777` behind", async () => {
    const pidFile = pidFileFor("sleep");
    const result = await tryServer(
      {
        command: "/bin/sh",
        args: ["-c", `sleep 777 & echo $! > ${pidFile}; exec cat`],
        env: {},
        secretEnv: [],
        allow: null,
        private: false,
      },
      { name: "cat", timeoutMs: 10_000 },
    );
    // cat echoes the client's initialize back to it: no MCP server, the try says so.
    expect(result.ok).toBe(false);
    const sleeper = stubbornPids(pidFile);
    expect(sleeper).toHaveLength(1);
    await untilGone(sleeper, "the tried server's `sleep 777` to end with the try");
  });

  it("close() ends a server that ignores its closed stdin and SIGTERM, with all it started", async () => {
    const pidFile = pidFileFor("stubborn");
    const server = track(new WrappedServer("stubborn", stubbornEntry(TOY_SERVER_UNIT_JS, pidFile)));
    await server.start();
    const [wrapper, toyServer, sleeper] = stubbornPids(pidFile);
    expect(processGroupOf(wrapper!)).toBe(wrapper);
    expect([toyServer, sleeper].map((pid) => processGroupOf(pid!))).toEqual([wrapper, wrapper]);
    const stopping = performance.now();
    await server.close();
    const took = performance.now() - stopping;
    await untilGone([wrapper!, toyServer!, sleeper!], "the whole tree to end");
    // stdin closed, the grace, SIGTERM ignored, the grace, SIGKILL: no longer, whatever it does.
    expect(took).toBeLessThan(STOP_STDIN_GRACE_MS + STOP_TERM_GRACE_MS + 2_000);
  });

  it("restart() ends the old tree before the new one starts", async () => {
    const pidFile = pidFileFor("restart");
    const server = track(new WrappedServer("stubborn", stubbornEntry(TOY_SERVER_UNIT_JS, pidFile)));
    await server.start();
    const first = stubbornPids(pidFile);
    await server.restart();
    expect(server.status).toBe("ready");
    await untilGone(first, "the first start's tree to end at the restart");
    const second = stubbornPids(pidFile).slice(first.length);
    expect(second).toHaveLength(3);
    expect(second.every((pid) => processRunning(pid))).toBe(true);
    await server.close();
    await untilGone(second, "the second tree to end at close()");
  });

  it("a server removed from the config (ServerSet.replace) has its whole tree ended", async () => {
    const pidFile = pidFileFor("removed");
    const set = new ServerSet({
      servers: new Map([["stubborn", stubbornEntry(TOY_SERVER_UNIT_JS, pidFile)]]),
    });
    try {
      await set.open();
      const tree = stubbornPids(pidFile);
      expect(tree).toHaveLength(3);
      const result = await set.replace({ servers: new Map() });
      expect(result.removed).toEqual(["stubborn"]);
      await untilGone(tree, "the removed server's tree to end");
    } finally {
      await set.close();
    }
  });

  it("a well-behaved server leaves at once when its stdin closes: no signal, no grace", async () => {
    const server = toy();
    await server.start();
    const pid = server.pid!;
    const stopping = performance.now();
    await server.close();
    expect(performance.now() - stopping).toBeLessThan(STOP_STDIN_GRACE_MS);
    await untilGone([pid], "the toy server to leave");
  });
});

describe("ServerProcessTransport", () => {
  const shell = (script: string): ServerProcessTransport =>
    new ServerProcessTransport(
      { command: "/bin/sh", args: ["-c", script], stderr: "pipe" },
      { stdinMs: 200, termMs: 200 },
    );

  it("starts the child as the leader of a process group of its own", async () => {
    const transport = shell("exec cat");
    await transport.start();
    const pid = transport.pid!;
    left.push(pid);
    expect(processGroupOf(pid)).toBe(pid);
    expect(processGroupOf(pid)).not.toBe(processGroupOf(process.pid));
    await transport.close();
    await untilGone([pid], "cat to leave");
  });

  it("killNow() (a flooding server) ends the whole tree at once", async () => {
    const transport = shell("trap '' TERM; sleep 777 & exec sleep 778");
    await transport.start();
    const pid = transport.pid!;
    await until(() => descendantPids(pid).length === 1, "the background sleep");
    const tree = [pid, ...descendantPids(pid)];
    transport.killNow();
    await untilGone(tree, "the tree to end at once");
    await transport.close();
  });

  it("close() after the server died by itself still ends what it left running", async () => {
    const pidFile = pidFileFor("orphan");
    // The first process exits at once; its `sleep` keeps the pipes and the group.
    const transport = shell(`sleep 777 & echo $! > ${pidFile}; exit 3`);
    await transport.start();
    const pid = transport.pid!;
    await until(() => !processRunning(pid), "the first process to exit");
    await until(() => stubbornPids(pidFile).length === 1, "the sleep's pid");
    const sleeper = stubbornPids(pidFile);
    expect(sleeper.every((p) => processRunning(p))).toBe(true);
    await transport.close();
    await untilGone(sleeper, "the orphaned sleep to end at close()");
  });
});

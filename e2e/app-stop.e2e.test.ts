// However the app is stopped, it stops within a bound and leaves nothing behind: no process of
// a wrapped server's tree, no container of its install. Real processes as a user starts them
// (`codemode daemon`, and `node scripts/start.mjs`, what `npm start` runs here, headless), real
// signals as a terminal sends them (to the whole process group), a real terminal closed under
// it (a pseudo-terminal made by `script`), real Docker.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type Dockerode from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  hostEnv,
  homeContainers,
  makeHome,
  startDaemon,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  descendantPids,
  processRunning,
  repoRoot,
  waitForExit,
} from "../test-support/processes.js";
import { stubbornPids, stubbornServer } from "../test-support/stubborn-server.js";
import { until } from "../test-support/wait.js";
import { STOP_STDIN_GRACE_MS, STOP_TERM_GRACE_MS } from "../electron/host/servers/process-tree.js";

const fx = await dockerOrSkip();

/** What the machine may add to a stop beyond the servers' grace (audit, sockets, containers). */
const STOP_MARGIN_MS = 8_000;

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe("stopping the daemon while a wrapped server ignores its closed stdin and SIGTERM", () => {
  afterAll(async () => {
    await cleanUpHosts();
  });

  it("SIGTERM ends it within the servers' grace, and no process of the server's tree remains", async () => {
    const home = makeHome();
    const pidFile = path.join(home, "stubborn.pid");
    writeServers(home, { stubborn: stubbornServer(TOY_SERVER_JS, pidFile) });
    // No engine: what is measured is the servers' stop alone.
    const daemon = await startDaemon(home, {
      env: { DOCKER_HOST: "unix:///codemode-tests-no-engine.sock" },
    });
    await until(() => stubbornPids(pidFile).length === 3, "the stubborn server's three processes");
    const tree = stubbornPids(pidFile);
    try {
      const stopping = performance.now();
      // Before: the daemon stayed up as long as the server's `sleep 777` held its pipes.
      const exit = await daemon.stop(60_000);
      const took = performance.now() - stopping;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(took).toBeLessThan(STOP_STDIN_GRACE_MS + STOP_TERM_GRACE_MS + STOP_MARGIN_MS);
      await until(() => tree.every((pid) => !processRunning(pid)), "the server's tree to end");
    } finally {
      for (const pid of tree) if (processRunning(pid)) process.kill(pid, "SIGKILL");
    }
  });
});

/** `node scripts/start.mjs` (or `script` running it in a pseudo-terminal), as a user starts it. */
interface App {
  child: ChildProcess;
  /** The `codemode daemon --ui` it started. */
  daemonPid: number;
  output(): string;
}

/** The pid among `root`'s descendants whose command line is the daemon's. */
function daemonBelow(root: number): number | undefined {
  return descendantPids(root).find((pid) => {
    try {
      const args = execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" });
      return args.includes("codemode.js daemon --ui");
    } catch {
      return false;
    }
  });
}

describe.skipIf(!fx)("stopping `npm start`'s headless app, however it is stopped", () => {
  const docker = fx?.docker as Dockerode;
  let app: App | null = null;

  /**
   * Starts the app in a process group of its own (a terminal's foreground job), once its warm
   * pool is full; `inTerminal` runs it in a pseudo-terminal (`script`), as a terminal window does.
   */
  async function startApp(home: string, inTerminal = false): Promise<App> {
    const start = [process.execPath, path.join(repoRoot, "scripts", "start.mjs")];
    const env = hostEnv(home, { CODEMODE_NO_BROWSER: "1" });
    const child = inTerminal
      ? spawn("script", ["-qfec", start.join(" "), "/dev/null"], {
          cwd: repoRoot,
          env,
          // Held open: at its end `script` would end the session itself.
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
        })
      : spawn(start[0]!, start.slice(1), {
          cwd: repoRoot,
          env,
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.on("error", (error) => (output += `\nspawn failed: ${error.message}`));
    const started: App = { child, daemonPid: 0, output: () => output };
    app = started;
    await until(
      () => output.includes("codemode daemon: ready"),
      `the app to start:\n${output}`,
      60_000,
    );
    await until(
      async () =>
        (await homeContainers(docker, home)).filter((c) => c.state === "running").length >= 2,
      "the warm pool's two containers",
      60_000,
    );
    started.daemonPid = daemonBelow(child.pid!) ?? 0;
    expect(started.daemonPid).toBeGreaterThan(0);
    return started;
  }

  /** Waits for the daemon to end, then checks it left no container and no lock. */
  async function expectNothingLeft(home: string, started: App): Promise<void> {
    await until(
      () => !processRunning(started.daemonPid),
      `the daemon to end:\n${started.output()}`,
      30_000,
    );
    expect(await homeContainers(docker, home)).toEqual([]);
    expect(existsSync(path.join(home, "host.lock"))).toBe(false);
  }

  afterEach(() => {
    // A failed test must not leave its app running: the group, then the daemon on its own.
    const running = app;
    app = null;
    if (!running?.child.pid) return;
    for (const pid of [-running.child.pid, running.daemonPid]) {
      try {
        if (pid !== 0) process.kill(pid, "SIGKILL");
      } catch {
        // Gone, as it should be.
      }
    }
  });

  afterAll(async () => {
    await cleanUpHosts(docker);
  });

  it("Ctrl-C (SIGINT to the terminal's whole process group) removes every container", async () => {
    const home = makeHome();
    const started = await startApp(home);
    // Before: the daemon took the terminal's SIGINT and start.mjs's as two, quit at the second
    // (exit 130) and left both warm containers behind, exited, never removed.
    process.kill(-started.child.pid!, "SIGINT");
    await waitForExit(started.child.pid!, 30_000);
    await expectNothingLeft(home, started);
    expect(started.output()).toContain("codemode daemon: stopped");
  });

  it("SIGHUP to the process group (its terminal closing) removes every container", async () => {
    const home = makeHome();
    const started = await startApp(home);
    process.kill(-started.child.pid!, "SIGHUP");
    await waitForExit(started.child.pid!, 30_000);
    await expectNothingLeft(home, started);
  });

  it("a real terminal closed under it (the pseudo-terminal's end gone) removes every container", async () => {
    const home = makeHome();
    const started = await startApp(home, true);
    // The terminal's program ends: the kernel hangs up the session, and every write to the
    // terminal fails from then on.
    started.child.kill("SIGKILL");
    await expectNothingLeft(home, started);
  });

  it("its parent ended (start.mjs killed outright) stops the daemon too, removing every container", async () => {
    const home = makeHome();
    const started = await startApp(home);
    // Before: the daemon ran on alone, its containers up, until someone found it.
    started.child.kill("SIGKILL");
    await expectNothingLeft(home, started);
  });

  it("`codemode daemon` on its own: SIGHUP stops it cleanly, every container removed", async () => {
    const home = makeHome();
    const daemon = await startDaemon(home);
    await until(
      async () =>
        (await homeContainers(docker, home)).filter((c) => c.state === "running").length >= 2,
      "the warm pool's two containers",
      60_000,
    );
    // Before: SIGHUP's default action ended it at once.
    process.kill(daemon.pid, "SIGHUP");
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(await homeContainers(docker, home)).toEqual([]);
  });
});

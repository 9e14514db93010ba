// The app dies under a connected client. The real SDK Client talks through the
// built `codemode shim` to a real daemon that is SIGKILLed, once with a run in flight and
// once idle; the shim reconnects and replays the client's `initialize`, so the same client
// session lists tools and runs code again without initialising anew. A daemon the shim
// started itself is started again by the shim.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHIM_STOPPED_CODE } from "../electron/host/ingress/local-access/local-access-constants.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  pidAlive,
  startDaemon,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

/** The pid in a data directory's instance lock: the daemon running there. */
function lockPid(home: string): number {
  const pid = Number(/\d+/.exec(readFileSync(path.join(home, "host.lock"), "utf8"))?.[0]);
  if (!(pid > 0)) throw new Error(`no pid in ${home}/host.lock`);
  return pid;
}

const shimStarted: number[] = [];

beforeAll(() => {
  assertHostBuilt();
});

afterAll(async () => {
  // The daemons a shim started are not this process's children: stop them by pid.
  for (const pid of shimStarted) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await Promise.all(
    shimStarted.map((pid) => until(() => !pidAlive(pid), `daemon ${pid} to stop`, 20_000)),
  );
  await cleanUpHosts(fx?.docker);
});

async function toolNames(shim: Awaited<ReturnType<typeof connectShim>>): Promise<string[]> {
  return (await shim.client.listTools()).tools.map((t) => t.name);
}

describe.skipIf(!fx)("the shim keeps its client's session when the app dies", () => {
  it("a run in flight gets 'the app went away' at once; after a restart, and after an idle kill, the same session lists tools and runs code", async () => {
    const home = makeHome("cm-reconnect-");
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "reconnect-client", version: "1" });
    expect((await shim.run("print('before')")).stdout).toBe("before\n");

    const inFlight = shim.run("import time\ntime.sleep(60)", { timeout_s: 60 });
    inFlight.catch(() => undefined);
    await until(() => auditEntries(home, "run_started").length === 2, "the run to be sleeping");
    const killedAt = Date.now();
    await daemon.kill();
    await expect(inFlight).rejects.toThrow(/Code Mode stopped: .*may or may not have run/);
    await inFlight.catch((error: { code?: unknown }) => expect(error.code).toBe(SHIM_STOPPED_CODE));
    expect(Date.now() - killedAt).toBeLessThan(5_000);

    const again = await startDaemon(home);
    expect(await toolNames(shim)).toContain("run_python");
    expect((await shim.run("print('after the crash')")).stdout).toBe("after the crash\n");
    // The new app knows the client by the name it gave in the initialize the shim replayed.
    expect(auditEntries(home, "run_started").at(-1)).toMatchObject({ client: "reconnect-client" });

    // Idle: nothing in flight when the app dies.
    await again.kill();
    await until(() => shim.stderr().includes("reconnecting"), "the shim to notice");
    const third = await startDaemon(home);
    await until(
      () => shim.stderr().split("reconnected to Code Mode").length === 3,
      `the shim to reconnect a second time:\n${shim.stderr()}`,
    );
    expect(await toolNames(shim)).toContain("run_python");
    expect((await shim.run("print('after the idle kill')")).stdout).toBe("after the idle kill\n");
    expect(pidAlive(shim.pid)).toBe(true);
    await shim.close();
    expect(await shim.exitCode).toBe(0);
    await third.stop();
  }, 120_000);

  it("starts again the daemon it started itself when that one is killed", async () => {
    const home = makeHome("cm-reconnect-");
    // No CODEMODE_APP: the shim starts `codemode daemon` of this built checkout.
    const shim = await connectShim(
      home,
      { name: "own-daemon", version: "1" },
      {
        env: { CODEMODE_APP: "" },
      },
    );
    const first = lockPid(home);
    shimStarted.push(first);
    expect((await shim.run("print(1)")).stdout).toBe("1\n");

    process.kill(first, "SIGKILL");
    await until(() => !pidAlive(first), "the first daemon to die");
    // Waits in the shim while it starts the daemon again.
    expect(await toolNames(shim)).toContain("run_python");
    const second = lockPid(home);
    shimStarted.push(second);
    expect(second).not.toBe(first);
    expect(shim.stderr()).toContain("starting Code Mode again (codemode daemon; 1 of at most");
    expect((await shim.run("print(2)")).stdout).toBe("2\n");
    await shim.close();
  }, 120_000);
});

// The app goes away mid-run (SIGKILL, as in a crash): the client of a real `codemode shim`
// must get an error for its run at once, not wait out its own request timeout, and the shim
// must say why on stderr and wait for the app to come back (e2e/shim-reconnect.e2e.test.ts
// shows it coming back); a client that leaves meanwhile gets exit status 1.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  homeContainers,
  makeHome,
  pidAlive,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { SHIM_STOPPED_CODE } from "../electron/host/ingress/local-access/local-access-constants.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("the app dies mid-run", () => {
  afterAll(async () => {
    // Removes the killed daemon's containers (it had no chance to) and the home.
    await cleanUpHosts(fx?.docker);
  });

  it("every request in flight through the shim gets a 'Code Mode stopped' error at once; the shim says why, keeps waiting, and exits 1 when the client leaves", async () => {
    const home = makeHome();
    writeServers(home, { toy: toyServer() });
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "crash-victim", version: "1" });
    const code = 'await toy__echo({"text": "sleeping"})\nimport asyncio\nawait asyncio.sleep(30)';
    // The SDK's default request timeout is 60 s: without the shim's answer, that is the wait.
    const first = shim.run(code, { timeout_s: 60 });
    const second = shim.run(code, { timeout_s: 60 });
    first.catch(() => undefined);
    second.catch(() => undefined);
    await until(
      () => auditEntries(home, "call", "crash-victim").length === 2,
      "both runs to be sleeping in their containers",
    );

    const killedAt = Date.now();
    await daemon.kill();
    await expect(first).rejects.toThrow(/Code Mode stopped: it went away before answering/);
    await expect(second).rejects.toThrow(/Code Mode stopped/);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    await first.catch((error: { code?: unknown }) => expect(error.code).toBe(SHIM_STOPPED_CODE));

    // The shim stays for the client, waiting for the app to come back.
    expect(pidAlive(shim.pid)).toBe(true);
    // A SIGKILLed process's socket ends like a quitting one's: the shim cannot tell them apart.
    // The exit can be seen before the last of stderr has been read: wait for it.
    const why =
      /codemode shim: Code Mode stopped: .*answered 2 request\(s\) in flight with an error\n/;
    await until(() => why.test(shim.stderr()), `the shim's stderr to say why:\n${shim.stderr()}`);
    await shim.close();
    expect(await shim.exitCode).toBe(1);
    // The SIGKILLed daemon left its run containers behind; afterAll removes them.
    expect((await homeContainers(fx!.docker, home)).length).toBeGreaterThanOrEqual(2);
  });
});

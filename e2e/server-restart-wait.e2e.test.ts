// A call made while a wrapped server restarts waits for it. A real daemon wraps
// the toy server; the code makes it crash, then calls it again at once. Before, that call was
// refused ("is restarting after a failure; try again shortly"); now it goes out once the new
// process is up, within the call's 30 s timeout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

const CRASH_THEN_CALL = [
  "try:",
  "    await toy__crash({})",
  "except ToolError as error:",
  "    print('crashed')",
  'print(await toy__echo({"text": "after the restart"}))',
].join("\n");

describe.skipIf(!fx)("a call during a wrapped server's restart", () => {
  it("waits for the restart and goes out, instead of being refused", async () => {
    const home = makeHome("cm-restart-");
    // A slow start keeps the restart window open long enough to call into it.
    writeServers(home, { toy: toyServer({ env: { TOY_START_DELAY_MS: "500" } }) });
    await startDaemon(home);
    const client = await connectShim(home);

    const result = await client.run(CRASH_THEN_CALL);
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("crashed\nafter the restart\n");

    const calls = auditEntries(home, "call").map((c) => [c.tool, c.decision]);
    expect(calls).toEqual([
      ["toy__crash", "failed"],
      ["toy__echo", "allowed"],
    ]);
    await client.close();
  }, 120_000);
});

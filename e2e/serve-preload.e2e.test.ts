// `codemode serve --no-preload` under a real MCP client: serve's warm container is started
// without the runner's preload flag, and the run that takes it finds numpy, pandas and
// matplotlib not imported. Without the flag (the app's default, preloading on) the same look
// at the warm container sees the flag: the check can tell the two apart.
import type Dockerode from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { PRELOAD_FLAG } from "../electron/host/sandbox/containers/container-spec.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip, inspectIfThere, installContainers } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import {
  assertServeBuilt,
  sandboxContainers,
  startServe,
  tempHome,
  TOY_COMMAND,
} from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";

const fx = await dockerOrSkip();

/** Which of the preloaded modules the code finds imported before it imports anything. */
const PROBE = [
  "import sys",
  "print(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules))",
].join("\n");
/** Starting serve and its warm container, on a machine loaded by other docker tests. */
const WARM_WAIT_MS = 60_000;
const TEST_MS = 120_000;

/** The running warm container of a data directory and the command its runner was given. */
async function warmContainer(
  docker: Dockerode,
  home: string,
): Promise<{ id: string; cmd: string[] }> {
  let found: { id: string; cmd: string[] } | undefined;
  await until(
    async () => {
      const running = (await installContainers(docker, home)).find((c) => c.State === "running");
      const info = running && (await inspectIfThere(docker, running.Id));
      if (info) found = { id: info.Id, cmd: info.Config.Cmd ?? [] };
      return found !== undefined;
    },
    "serve's warm container",
    WARM_WAIT_MS,
  );
  return found!;
}

describe.skipIf(!fx)("codemode serve --no-preload", () => {
  const { home } = tempHome();
  let serve: McpSession | null = null;

  afterAll(async () => {
    await serve?.close();
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
    removeTempDirs();
  });

  it(
    "the warm container does not preload, and the run that takes it finds nothing imported",
    async () => {
      assertServeBuilt();
      assertToyServerBuilt();
      serve = await startServe({ home, args: ["--no-preload", "--", ...TOY_COMMAND] });
      const warm = await warmContainer(fx!.docker, home);
      expect(warm.cmd[0]).toBe("python3");
      expect(warm.cmd).not.toContain(PRELOAD_FLAG);
      // Nor does any other (the floor of 2 is two containers).
      for (const c of await installContainers(fx!.docker, home)) {
        const cmd = (await inspectIfThere(fx!.docker, c.Id))?.Config.Cmd ?? [];
        expect(cmd).not.toContain(PRELOAD_FLAG);
      }
      // A run takes the warm container once its runner is ready (at once without preloading),
      // which is then removed: until it is gone, a run may have started cold instead.
      await until(
        async () => {
          const result = await serve!.run(PROBE);
          expect(result).toMatchObject({ stdout: "[]\n", error: null });
          const ids = await sandboxContainers(fx!.docker, home);
          return !ids.includes(warm.id);
        },
        "a run in the warm container",
        WARM_WAIT_MS,
      );
    },
    TEST_MS,
  );

  it(
    "without the flag the warm container preloads (the default)",
    async () => {
      await serve?.close();
      await until(
        async () => (await sandboxContainers(fx!.docker, home)).length === 0,
        "the first serve's containers removed",
      );
      serve = await startServe({ home, args: ["--", ...TOY_COMMAND] });
      // The pool's floor of 2 is one preloading container and a lean spare
      // (POOL_LEAN_SPARES): the preloading one is there, and the spare is not it.
      const commands = async (): Promise<string[][]> => {
        const running = (await installContainers(fx!.docker, home)).filter(
          (c) => c.State === "running",
        );
        return Promise.all(
          running.map(async (c) => (await inspectIfThere(fx!.docker, c.Id))?.Config.Cmd ?? []),
        );
      };
      await until(
        async () => (await commands()).some((cmd) => cmd.includes(PRELOAD_FLAG)),
        "serve's preloading warm container",
        WARM_WAIT_MS,
      );
    },
    TEST_MS,
  );
});

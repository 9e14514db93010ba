// Refills started while runs outpace the warm pool skip the preload imports (each costs ~0.4 s of
// CPU, more on a loaded machine, while runs wait); once no run came for the lean window, the
// idle containers started that way are replaced by preloading ones. Real engine: the command
// each container was started with tells which way it was made.
import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../test-support/docker.js";
import { until } from "../../../test-support/wait.js";
import { PRELOAD_FLAG } from "./containers/container-spec.js";
import { Sandbox } from "./sandbox.js";

const fx = await dockerOrSkip();
const PROBE = [
  "import sys",
  "print(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules))",
].join("\n");
const ALL = "['matplotlib.pyplot', 'numpy', 'pandas']\n";
/** Preloading takes seconds, ~30 s with the other docker tests loading the machine. */
const READY_WAIT_MS = 90_000;
const TEST_MS = 180_000;

/** The commands of this process's sandbox containers that are running now. */
async function runningCommands(): Promise<string[]> {
  const list = await fx!.docker.listContainers({
    filters: { label: ["codemode.sandbox=1", `codemode.owner-pid=${process.pid}`] },
  });
  return list.map((c) => c.Command);
}

describe.skipIf(!fx)("a warm pool under pressure", () => {
  const sandboxes: Sandbox[] = [];
  const make = (leanWindowMs: number, floor = 0): Sandbox => {
    // No floor: the first run misses without growing the pool, the second (a burst) grows it
    // to one, and the refill that starts then is made under pressure.
    const sandbox = new Sandbox({
      engine: fx!.engine,
      image: fx!.image,
      owner: testOwner(),
      poolSize: floor,
      poolGrowth: { maxSize: 1, idleMs: 600_000 },
      preload: true,
      leanWindowMs,
    });
    sandboxes.push(sandbox);
    return sandbox;
  };

  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it(
    "refills after a miss skip preloading; a rested pool swaps them for preloading ones",
    async () => {
      const pressed = make(600_000);
      for (let i = 0; i < 2; i++) expect((await pressed.run({ code: PROBE })).stdout).toBe("[]\n");
      expect(pressed.poolTarget).toBe(1);
      await until(() => pressed.idleContainers === 1, "the refill", READY_WAIT_MS);
      await pressed.settle();
      const lean = await runningCommands();
      expect(lean).toHaveLength(1);
      expect(lean[0]).not.toContain(PRELOAD_FLAG);
      // A run that then imports pandas gets it, paying the import itself.
      const pandas = await pressed.run({ code: "import pandas as pd; print(pd.__name__)" });
      expect(pandas).toMatchObject({ stdout: "pandas\n", error: null });
      await pressed.close();

      // A floor of 1: a rested pool preloads its floor's worth (a grown pool's extras stay lean).
      const rested = make(2_000, 1);
      for (let i = 0; i < 2; i++) await rested.run({ code: PROBE });
      // No run for 2 s: a lean idle container is replaced by one that preloads.
      await until(
        async () => {
          const commands = await runningCommands();
          return (
            rested.idleContainers === 1 &&
            commands.length === 1 &&
            commands[0]!.includes(PRELOAD_FLAG)
          );
        },
        "a preloading container in place of the lean one",
        READY_WAIT_MS,
      );
      expect((await rested.run({ code: PROBE })).stdout).toBe(ALL);
    },
    TEST_MS,
  );
});

// Warm-pool containers import numpy, pandas and matplotlib while they wait; cold ones do not.
// Real image, real Docker: what the code sees in sys.modules tells which path it ran on.

import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../test-support/docker.js";
import { currentOwner } from "./containers/container-owner.js";
import { OWNER_LABELS } from "./containers/container-spec.js";
import { READY_LINE } from "./containers/ready-line.js";
import { Sandbox, type SandboxOptions } from "./sandbox.js";
import { until } from "../../../test-support/wait.js";

const fx = await dockerOrSkip();
const owner = testOwner();

const PROBE = [
  "import sys",
  "print(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules))",
].join("\n");
const ALL = "['matplotlib.pyplot', 'numpy', 'pandas']\n";
/**
 * A preloading container is pooled only after its imports: seconds, ~30 s with the other docker
 * tests loading the machine; the tests that wait for one get TEST_MS.
 */
const READY_WAIT_MS = 90_000;
const TEST_MS = 150_000;

describe.skipIf(!fx)("preloading in warm containers", () => {
  const sandboxes: Sandbox[] = [];
  const make = (
    poolSize: number,
    preload?: boolean,
    more: Partial<SandboxOptions> = {},
  ): Sandbox => {
    const sandbox = new Sandbox({
      engine: fx!.engine,
      image: fx!.image,
      owner,
      poolSize,
      preload,
      ...more,
    });
    sandboxes.push(sandbox);
    return sandbox;
  };

  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it(
    "a warm-pool run finds the libraries imported; its output holds only what it printed",
    async () => {
      const sandbox = make(1, true);
      await until(() => sandbox.idleContainers === 1, "a warm container", READY_WAIT_MS);
      const result = await sandbox.run({ code: PROBE });
      expect(result).toMatchObject({ stdout: ALL, stderr: "", error: null, exit_code: 0 });
    },
    TEST_MS,
  );

  it("a cold run (preloading on), and a warm one with preloading off, import nothing up front", async () => {
    const cold = await make(0, true).run({ code: PROBE });
    expect(cold).toMatchObject({ stdout: "[]\n", stderr: "", error: null });
    const off = make(1);
    await until(() => off.idleContainers === 1, "a warm container");
    expect(await off.run({ code: PROBE })).toMatchObject({ stdout: "[]\n", error: null });
  });

  it(
    "plt.show() still attaches figures when pyplot was imported before the run",
    async () => {
      const sandbox = make(1, true);
      await until(() => sandbox.idleContainers === 1, "a warm container", READY_WAIT_MS);
      const code = [
        "import sys",
        "assert 'matplotlib.pyplot' in sys.modules",
        "import matplotlib.pyplot as plt",
        "plt.plot([1, 2, 3])",
        "plt.show()",
        "print(len(plt.get_fignums()))",
      ].join("\n");
      const result = await sandbox.run({ code });
      expect(result).toMatchObject({ error: null, stdout: "0\n" });
      expect(result.images.map((i) => i.name)).toEqual(["figure-1.png"]);
    },
    TEST_MS,
  );

  it(
    "a preloading container is handed out only after its runner said ready",
    async () => {
      const created = Date.now();
      const sandbox = make(1, true);
      await until(() => sandbox.idleContainers === 1, "a warm container", READY_WAIT_MS);
      const pooled = Date.now();
      // The code reads the clock the host reads (one kernel): when did it start, after pooling?
      const result = await sandbox.run({ code: `import time\nprint(time.time())\n${PROBE}` });
      expect(result).toMatchObject({ error: null, stopped: null });
      const [started, modules] = result.stdout.split("\n");
      expect(`${modules}\n`).toBe(ALL);
      const gap = Number(started) * 1000 - pooled;
      // Counted ready only after the imports: the code starts at once, not after the imports
      // (before the ready line, pooled at container start, the run waited for all of them).
      expect(gap).toBeLessThan((pooled - created) / 2);
      await sandbox.close();
    },
    TEST_MS,
  );

  it(
    "a warm container not ready within the timeout is removed and replaced",
    async () => {
      // 20 ms is far less than the imports take: no preloading container is ever ready in time.
      const install = "codemode-tests-never-ready";
      const sandbox = make(1, true, { owner: currentOwner(install), readyTimeoutMs: 20 });
      const seen = new Set<string>();
      await until(
        async () => {
          const list = await fx!.docker.listContainers({
            all: true,
            filters: { label: [`${OWNER_LABELS.install}=${install}`] },
          });
          for (const c of list) seen.add(c.Id);
          // One at a time: each is removed before its replacement starts.
          expect(list.length).toBeLessThanOrEqual(1);
          expect(sandbox.idleContainers).toBe(0);
          return seen.size >= 3;
        },
        "three warm containers, each replaced",
        READY_WAIT_MS,
      );
      // A run meanwhile does not wait for any of them: it gets a cold container.
      const result = await sandbox.run({ code: PROBE });
      expect(result).toMatchObject({ stdout: "[]\n", error: null });
      await sandbox.close();
      const left = await fx!.docker.listContainers({
        all: true,
        filters: { label: [`${OWNER_LABELS.install}=${install}`] },
      });
      expect(left).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "turning preloading on or off replaces the idle warm container",
    async () => {
      const sandbox = make(1, false);
      await until(() => sandbox.idleContainers === 1, "a warm container");
      sandbox.setPreload(true);
      expect(sandbox.idleContainers).toBe(0); // the one made without preloading is gone
      await until(() => sandbox.idleContainers === 1, "a preloaded container", READY_WAIT_MS);
      expect(await sandbox.run({ code: PROBE })).toMatchObject({ stdout: ALL, error: null });
      sandbox.setPreload(false);
      await until(() => sandbox.idleContainers === 1, "a warm container");
      expect(await sandbox.run({ code: PROBE })).toMatchObject({ stdout: "[]\n", error: null });
      await sandbox.close();
    },
    TEST_MS,
  );

  it(
    "code cannot fake the ready line: written during a run, it ends the run",
    async () => {
      const forge = [
        "import os",
        "for fd in range(3, 64):",
        "    try:",
        `        os.write(fd, ${JSON.stringify(READY_LINE)}.encode())`,
        "    except OSError:",
        "        pass",
        "import time; time.sleep(5)",
      ].join("\n");
      const warm = make(1, true);
      await until(() => warm.idleContainers === 1, "a warm container", READY_WAIT_MS);
      expect((await warm.run({ code: forge })).stopped).toBe("protocol_violation");
      // A cold container too: its ready line was taken before the run, a second one is not.
      expect((await make(0, true).run({ code: forge })).stopped).toBe("protocol_violation");
    },
    TEST_MS,
  );
});

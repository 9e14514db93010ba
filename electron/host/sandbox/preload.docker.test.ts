// Warm-pool containers import numpy, pandas and matplotlib while they wait; cold ones do not.
// Real image, real Docker: what the code sees in sys.modules tells which path it ran on.

import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../test-support/docker.js";
import { Sandbox } from "./sandbox.js";
import { until } from "../../../test-support/wait.js";

const fx = await dockerOrSkip();
const owner = testOwner();

const PROBE = [
  "import sys",
  "print(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules))",
].join("\n");
const ALL = "['matplotlib.pyplot', 'numpy', 'pandas']\n";

describe.skipIf(!fx)("preloading in warm containers", () => {
  const sandboxes: Sandbox[] = [];
  const make = (poolSize: number, preload?: boolean): Sandbox => {
    const sandbox = new Sandbox({ docker: fx!.docker, image: fx!.image, owner, poolSize, preload });
    sandboxes.push(sandbox);
    return sandbox;
  };

  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("a warm-pool run finds the libraries imported; its output holds only what it printed", async () => {
    const sandbox = make(1, true);
    await until(() => sandbox.idleContainers === 1, "a warm container");
    const result = await sandbox.run({ code: PROBE });
    expect(result).toMatchObject({ stdout: ALL, stderr: "", error: null, exit_code: 0 });
  });

  it("a cold run (preloading on), and a warm one with preloading off, import nothing up front", async () => {
    const cold = await make(0, true).run({ code: PROBE });
    expect(cold).toMatchObject({ stdout: "[]\n", stderr: "", error: null });
    const off = make(1);
    await until(() => off.idleContainers === 1, "a warm container");
    expect(await off.run({ code: PROBE })).toMatchObject({ stdout: "[]\n", error: null });
  });

  it("plt.show() still attaches figures when pyplot was imported before the run", async () => {
    const sandbox = make(1, true);
    await until(() => sandbox.idleContainers === 1, "a warm container");
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
  });
});

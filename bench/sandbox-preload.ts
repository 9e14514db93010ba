// Preloading in warm containers, side by side in one process: a warm pool whose containers
// import numpy, pandas and matplotlib while they wait, and one whose containers do not
// (Sandbox's `preload: false`, the behaviour before preloading). For each: `import pandas` run
// through the warm pool, `print(1)` taken the moment a container is pooled (what a run pays
// if it arrives while the container is still importing), and the memory of an idle container
// (what `docker stats` shows: usage minus inactive file cache), next to the 256 MiB limit.
import type Dockerode from "dockerode";
import { findDocker } from "../electron/host/docker/docker-status.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { currentOwner } from "../electron/host/sandbox/container-owner.js";
import { OWNER_LABELS } from "../electron/host/sandbox/container-spec.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SANDBOX_LIMITS } from "../shared/limits.js";
import { median, row, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
/** How long a pooled container is left alone before a timed run, so its preloading is done. */
const SETTLE_MS = Number(process.env.BENCH_PRELOAD_SETTLE_MS ?? 4000);
const PANDAS = "import pandas as pd; print(pd.__version__)";
const MiB = 1024 * 1024;

interface Variant {
  label: string;
  install: string;
  sandbox: Sandbox;
  pandas: number[];
  early: number[];
  memory: number[];
}

interface MemoryStats {
  memory_stats?: { usage?: number; stats?: Record<string, number> };
}

/** Memory of every idle container of `install`, as `docker stats` computes it. */
async function idleMemory(docker: Dockerode, install: string): Promise<number[]> {
  const listed = await docker.listContainers({
    filters: { label: [`${OWNER_LABELS.install}=${install}`], status: ["running"] },
  });
  return Promise.all(
    listed.map(async ({ Id }) => {
      const stats = (await docker.getContainer(Id).stats({ stream: false })) as MemoryStats;
      const usage = stats.memory_stats?.usage ?? 0;
      return usage - (stats.memory_stats?.stats?.inactive_file ?? 0);
    }),
  );
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const make = (label: string, install: string, preload: boolean): Variant => ({
    label,
    install,
    sandbox: new Sandbox({ docker, image, owner: currentOwner(install), poolSize: 1, preload }),
    pandas: [],
    early: [],
    memory: [],
  });
  // Made one after the other: each pool fills alone, so neither slows the other's start.
  const variants = [
    make("without preloading", "codemode-bench-no-preload", false),
    make("with preloading", "codemode-bench-preload", true),
  ];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const v of variants) {
        await waitFor(() => v.sandbox.idleContainers === 1);
        await sleep(SETTLE_MS);
        v.memory.push(...(await idleMemory(docker, v.install)));
        let t = performance.now();
        await v.sandbox.run({ code: PANDAS });
        v.pandas.push(performance.now() - t);
        await v.sandbox.settle();
        // The pool starts a replacement on take: time a run taken as soon as it is pooled.
        await waitFor(() => v.sandbox.idleContainers === 1);
        t = performance.now();
        await v.sandbox.run({ code: "print(1)" });
        v.early.push(performance.now() - t);
        await v.sandbox.settle();
      }
    }
  } finally {
    await Promise.all(variants.map((v) => v.sandbox.close()));
  }
  const [off, on] = variants as [Variant, Variant];
  console.log(`warm-pool preloading (numpy, pandas, matplotlib), median of ${ROUNDS} rounds`);
  const base = median(off.pandas);
  console.log(`\`${PANDAS}\` via the warm pool (ratio to without)`);
  for (const v of variants) console.log(row(`  ${v.label}`, median(v.pandas), base));
  const earlyBase = median(off.early);
  console.log("`print(1)` taken the moment a container is pooled (ratio to without)");
  for (const v of variants) console.log(row(`  ${v.label}`, median(v.early), earlyBase));
  const limit = SANDBOX_LIMITS.memoryBytes / MiB;
  console.log(`memory of an idle warm container (limit ${limit} MiB per container)`);
  for (const v of variants) {
    const mib = median(v.memory) / MiB;
    const share = ((100 * mib) / limit).toFixed(0);
    console.log(`  ${v.label.padEnd(42)} ${mib.toFixed(1).padStart(7)} MiB  ${share}% of limit`);
  }
  console.log(
    `(extra per idle container: ${((median(on.memory) - median(off.memory)) / MiB).toFixed(1)} MiB)`,
  );
}

await main();

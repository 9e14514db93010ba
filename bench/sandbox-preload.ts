// Preloading in warm containers, side by side in one process: a warm pool whose containers
// import numpy, pandas and matplotlib while they wait (the default, setting `sandboxPreload`),
// and one whose containers do not (the default before). A container is pooled only once its
// runner said ready (after its imports). For each, per round:
// - `import pandas` run through the warm pool;
// - `print(1)` run the moment the pool holds a ready container again;
// - `print(1)` run at once after that, while the replacement is still starting (and, with
//   preloading, importing): it takes a cold container; beside it, how long waiting for that
//   replacement to be ready would have taken instead (why the pool does not wait);
// - the memory of an idle container (what `docker stats` shows: usage minus inactive file
//   cache), next to the 256 MiB limit.
// Refills after a run that found the pool empty preload too here (no lean window, see make()).
// Once per variant: how much a run can still allocate before the 256 MiB limit ends it (plain
// Python, and after `import pandas`), and a run building a ~120 MiB pandas DataFrame.
import type Dockerode from "dockerode";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { OWNER_LABELS } from "../electron/host/sandbox/containers/container-spec.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SANDBOX_LIMITS } from "../shared/limits.js";
import type { RunResult } from "../shared/run-result.js";
import { report } from "./report.js";
import { median, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Waiting for a preloading container to be ready can take seconds on a loaded machine. */
const READY_WAIT_MS = 120_000;
const PANDAS = "import pandas as pd; print(pd.__version__)";
const MiB = 1024 * 1024;

/** Allocates 4 MiB at a time (pages touched) and says how far it got, until the limit stops it. */
const fill = (prelude: string): string =>
  [
    prelude,
    "import sys",
    "blocks = []",
    "while True:",
    "    blocks.append(bytearray(4 << 20))",
    "    print(len(blocks) * 4)",
    "    sys.stdout.flush()",
  ].join("\n");
const HEADROOM_PLAIN = fill("");
const HEADROOM_PANDAS = fill("import pandas as pd");
/** 2,000,000 x 8 float64 = 122 MiB, then a reduction over it. */
const DATAFRAME = [
  "import numpy as np, pandas as pd",
  "df = pd.DataFrame(np.ones((2_000_000, 8)))",
  "print(round(df.memory_usage().sum() / 2**20), int(df.sum().sum()))",
].join("\n");

interface Variant {
  label: string;
  install: string;
  sandbox: Sandbox;
  pandas: number[];
  afterFill: number[];
  noneReady: number[];
  waitReady: number[];
  memory: number[];
  /** MiB a plain run allocated before the limit stopped it, and how it ended. */
  headroomPlain: number;
  headroomEnd: string;
  /** The same after `import pandas`. */
  headroomPandas: number;
  dataframe: string;
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

/** The last MiB figure a fill run printed before the limit stopped it, and how it ended. */
function headroom(result: RunResult): { mib: number; end: string } {
  const lines = result.stdout.trim().split("\n");
  return { mib: Number(lines.at(-1) ?? "0"), end: result.stopped ?? result.error ?? "no stop" };
}

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const engine = status.engine;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const make = (label: string, install: string, preload: boolean): Variant => ({
    label,
    install,
    // No lean refills: this bench takes from an empty pool on purpose (the third run of each
    // round), and with the default lean window every refill for the next 10 s would skip its
    // imports, so the pandas and print(1) runs after it would meet containers that did not
    // preload. What lean refills cost and save is pool-burst's to measure.
    sandbox: new Sandbox({
      engine,
      image,
      owner: currentOwner(install),
      poolSize: 1,
      preload,
      leanWindowMs: 0,
    }),
    pandas: [],
    afterFill: [],
    noneReady: [],
    waitReady: [],
    memory: [],
    headroomPlain: 0,
    headroomEnd: "",
    headroomPandas: 0,
    dataframe: "",
  });
  // Made one after the other: each pool fills alone, so neither slows the other's start.
  const variants = [
    make("without preloading (before)", "codemode-bench-no-preload", false),
    make("with preloading (default now)", "codemode-bench-preload", true),
  ];
  const ready = (v: Variant) => waitFor(() => v.sandbox.idleContainers === 1, READY_WAIT_MS);
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const v of variants) {
        await ready(v);
        v.memory.push(...(await idleMemory(docker, v.install)));
        let t = performance.now();
        await v.sandbox.run({ code: PANDAS });
        v.pandas.push(performance.now() - t);
        await v.sandbox.settle();
        // The pool started a replacement on take: time a run taken once it is ready.
        await ready(v);
        t = performance.now();
        await v.sandbox.run({ code: "print(1)" });
        v.afterFill.push(performance.now() - t);
        // At once again: the replacement is still starting, so this one goes cold. Meanwhile
        // time how long waiting for that replacement would have taken.
        t = performance.now();
        const replacement = ready(v).then(() => v.waitReady.push(performance.now() - t));
        await v.sandbox.run({ code: "print(1)" });
        v.noneReady.push(performance.now() - t);
        await replacement;
        await v.sandbox.settle();
      }
    }
    for (const v of variants) {
      await ready(v);
      const plain = headroom(await v.sandbox.run({ code: HEADROOM_PLAIN }));
      v.headroomPlain = plain.mib;
      v.headroomEnd = plain.end;
      await ready(v);
      v.headroomPandas = headroom(await v.sandbox.run({ code: HEADROOM_PANDAS })).mib;
      await ready(v);
      const frame = await v.sandbox.run({ code: DATAFRAME });
      v.dataframe =
        frame.error === null && frame.stopped === null
          ? `fits (${frame.stdout.trim().split(" ")[0]} MiB frame)`
          : `does not fit: ${frame.stopped ?? frame.error}`;
      await v.sandbox.settle();
    }
  } finally {
    await Promise.all(variants.map((v) => v.sandbox.close()));
  }
  const [off, on] = variants as [Variant, Variant];
  const rounds = `median of ${ROUNDS} rounds`;
  const preloading = "a warm pool whose containers preload numpy, pandas, matplotlib (the default)";
  const plainPool = "the same pool without preloading (the default before)";
  report({
    what: `\`${PANDAS}\` via ${preloading}`,
    value: median(on.pandas),
    baseline: median(off.pandas),
    baselineWhat: plainPool,
    note: `${rounds}; goal 0.25x`,
  });
  report({
    what: `\`print(1)\` as soon as ${preloading} holds a ready container`,
    value: median(on.afterFill),
    baseline: median(off.afterFill),
    baselineWhat: plainPool,
    note: rounds,
  });
  for (const v of variants) {
    report({
      what: `\`print(1)\` right after a take, no container ready yet, pool ${v.label}: the run takes a cold container`,
      value: median(v.noneReady),
      baseline: median(v.waitReady),
      baselineWhat:
        "waiting for the pool's replacement container to be ready instead (why the pool does not wait)",
      note: rounds,
    });
  }
  const limit = SANDBOX_LIMITS.memoryBytes / MiB;
  report({
    what: "memory of an idle warm container that preloaded (usage minus inactive file cache)",
    value: median(on.memory) / MiB,
    baseline: median(off.memory) / MiB,
    baselineWhat: "an idle warm container that did not preload",
    unit: "MiB",
    note: `${((100 * median(on.memory)) / SANDBOX_LIMITS.memoryBytes).toFixed(0)}% of the ${limit} MiB limit per container`,
  });
  report({
    what: `what a run allocates in 4 MiB blocks before the ${limit} MiB limit stops it, in a container that preloaded`,
    value: on.headroomPlain,
    baseline: off.headroomPlain,
    baselineWhat: "the same in a container that did not preload",
    unit: "MiB",
    note: `ended by: ${on.headroomEnd} (without preloading: ${off.headroomEnd})`,
  });
  report({
    what: `the same after \`import pandas\` in the run, in a container that preloaded`,
    value: on.headroomPandas,
    baseline: off.headroomPandas,
    baselineWhat: "the same in a container that did not preload",
    unit: "MiB",
    note: `a 2,000,000 x 8 float DataFrame with preloading: ${on.dataframe}; without: ${off.dataframe}`,
  });
}

await main();

// A heavy run right after a burst, as an MCP client sees it: a real `codemode daemon` (default
// settings: a floor of 2, preloading on) and the SDK's Client over `codemode shim`. Each round
// sends a burst of back-to-back `print(1)` runs, then at once a run importing the libraries
// warm containers preload, timed from the client; for context the same heavy run on a rested
// pool, and the baseline: a cold hardened `docker run -i` of the same imports. While runs naming
// numpy, pandas or matplotlib come, light runs in a burst take lean containers (or a cold one)
// and leave the preloading one to them; a heavy run that finds none ready waits for one still
// importing.
//
// With CODEMODE_BEFORE_CHECKOUT set to another built checkout (e.g. a `git worktree add` of an
// older main, built), the same rounds also run through that checkout's daemon and shim, side by
// side: each round measures both, each on its own rested pool, the other's pool idle.
//
//   npx tsx bench/pool-after-burst.ts        (BENCH_ROUNDS=8, BENCH_BURST=10 by default)
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  startDaemon,
  writeServers,
} from "../test-support/daemon.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { poolReady } from "./pool-ready.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BURST = Number(process.env.BENCH_BURST ?? 10);
const LIGHT = "print(1)";
const HEAVY = "import pandas, matplotlib.pyplot\nprint(1)";
const BEFORE = process.env.CODEMODE_BEFORE_CHECKOUT;

interface Side {
  label: string;
  home: string;
  timed: (code: string) => Promise<number>;
  close: () => Promise<void>;
  after: number[];
  sinceBurst: number[];
  rested: number[];
}

async function startSide(label: string, checkout: string | undefined): Promise<Side> {
  const home = makeHome("codemode-bench-after-burst-");
  writeServers(home, {});
  const daemon = await startDaemon(home, { checkout });
  const shim = await connectShim(home, { name: "bench-after-burst", version: "1" }, { checkout });
  const timed = async (code: string): Promise<number> => {
    const start = performance.now();
    const result = await shim.run(code);
    if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
    return performance.now() - start;
  };
  const close = async (): Promise<void> => {
    await shim.close();
    await daemon.stop();
  };
  return { label, home, timed, close, after: [], sinceBurst: [], rested: [] };
}

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const cold: number[] = [];
  const sides: Side[] = [];
  try {
    sides.push(await startSide("now", undefined));
    if (BEFORE) sides.push(await startSide("before", BEFORE));
    await dockerRunOnce(image, HEAVY); // warm the engine's caches for every path alike
    for (const side of sides) await side.timed(LIGHT);
    // Every pool rested (all its containers started and idle), so one side's refills never
    // take the CPU from the other's runs.
    const rested = async (): Promise<void> => {
      for (const side of sides) await poolReady(docker, side.home, null);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so neither always follows the other's burst.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        await rested();
        side.rested.push(await side.timed(HEAVY));
        await rested();
        const burstStart = performance.now();
        for (let i = 0; i < BURST; i++) await side.timed(LIGHT);
        side.sinceBurst.push(performance.now() - burstStart);
        side.after.push(await side.timed(HEAVY));
      }
      cold.push(await dockerRunOnce(image, HEAVY));
    }
    for (const side of sides) await side.close();
  } finally {
    await cleanUpHosts(docker);
  }
  const base = median(cold);
  const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
  const [now, before] = sides as [Side, Side | undefined];
  const beside = before
    ? `; the checkout in CODEMODE_BEFORE_CHECKOUT, same rounds: median ${median(before.after).toFixed(0)} ms (${(median(before.after) / base).toFixed(2)}x), each ${list(before.after)}`
    : "; set CODEMODE_BEFORE_CHECKOUT to an older built checkout to measure it beside";
  report({
    what: `\`import pandas, matplotlib.pyplot\` via shim right after a burst of ${BURST} \`print(1)\` runs`,
    value: median(now.after),
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note: `median of ${ROUNDS}; each ms: ${list(now.after)}; cold ${list(cold)}; the bursts took ${list(now.sinceBurst)} ms; goal 0.25x${beside}`,
  });
  if (before) {
    report({
      what: `the same, through the checkout in CODEMODE_BEFORE_CHECKOUT (its pool as it was)`,
      value: median(before.after),
      baseline: base,
      baselineWhat: DOCKER_RUN_BASELINE,
      note: `median of ${ROUNDS}, same rounds; each ms: ${list(before.after)}; its bursts took ${list(before.sinceBurst)} ms`,
    });
  }
  report({
    what: "`import pandas, matplotlib.pyplot` via shim on a rested pool",
    value: median(now.rested),
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note: `median of ${ROUNDS}; each ms: ${list(now.rested)}`,
  });
}

await main();

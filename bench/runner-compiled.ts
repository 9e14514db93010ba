// What compiling runner.py into the image saves every container: Python never caches the
// bytecode of the script it is started with, so a container started on runner.py compiles its
// 40 KB first. The image holds both files; cold hardened `docker run -i` of `print(1)` on each,
// rounds interleaved (and the order within a round alternated) so both meet the same load.
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { RUNNER_PATH } from "../electron/host/sandbox/containers/container-spec.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { dockerRunOnce } from "./docker-run-baseline.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SOURCE = RUNNER_PATH.replace(/\.pyc$/, ".py");

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  await dockerRunOnce(image, "print(1)"); // the engine's caches warm for both alike
  const compiled: number[] = [];
  const source: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Each goes first in every other round, so neither always follows the other's removal.
    const pair = [
      async () => compiled.push(await dockerRunOnce(image, "print(1)", RUNNER_PATH)),
      async () => source.push(await dockerRunOnce(image, "print(1)", SOURCE)),
    ];
    if (i % 2 === 1) pair.reverse();
    for (const run of pair) await run();
  }
  report({
    what: `cold hardened \`docker run -i\` \`print(1)\` started on the compiled runner (the app's), median of ${ROUNDS}`,
    value: median(compiled),
    baseline: median(source),
    baselineWhat: "the same started on runner.py, compiled in the container (rounds interleaved)",
    note: "what compiling the runner into the image saves each container",
  });
}

await main();

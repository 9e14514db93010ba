// Median latency of `print(1)` three ways, measured side by side in one process:
// through the warm pool, through a cold container, and through a plain hardened
// `docker run -i` of the same image with the same flags (the baseline).
import { findDocker } from "../electron/host/docker/docker-status.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { currentOwner } from "../electron/host/sandbox/container-owner.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { dockerRunOnce } from "./docker-run-baseline.js";
import { median, row, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const owner = currentOwner("codemode-bench");
  const warm = new Sandbox({ docker: status.docker, image, owner, poolSize: 1 });
  const cold = new Sandbox({ docker: status.docker, image, owner, poolSize: 0 });
  const times = { warm: [] as number[], cold: [] as number[], plain: [] as number[] };
  try {
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    for (let i = 0; i < ROUNDS; i++) {
      await waitFor(() => warm.idleContainers === 1);
      let t = performance.now();
      await warm.run({ code: CODE });
      times.warm.push(performance.now() - t);
      t = performance.now();
      await cold.run({ code: CODE });
      times.cold.push(performance.now() - t);
      times.plain.push(await dockerRunOnce(image, CODE));
      await Promise.all([warm.settle(), cold.settle()]);
    }
  } finally {
    await Promise.all([warm.close(), cold.close()]);
  }
  const base = median(times.plain);
  console.log(`print(1), median of ${ROUNDS} rounds (ratio to plain docker run)`);
  console.log(row("plain hardened `docker run -i` (baseline)", base, base));
  console.log(row("Code Mode sandbox, cold container", median(times.cold), base));
  console.log(row("Code Mode sandbox, warm pool", median(times.warm), base));
}

await main();

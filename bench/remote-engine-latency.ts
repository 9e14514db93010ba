// `print(1)` through the warm pool and through a cold container, side by side in one process,
// on the machine's engine and on a remote one reached over TLS and over SSH (a second dockerd
// and sshd on loopback, as remote-engine.docker.test.ts starts them). Loopback has no network
// delay: what differs is the transport (TLS records, SSH channels and dial-stdio) and the
// second engine; a real remote engine adds its round trips to each of the few API calls a run
// makes. Ratios are to the local engine's same path.
import {
  findEngine,
  type FoundEngine,
} from "../electron/host/sandbox/container-engine/find-engine.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { freePort } from "../test-support/free-port.js";
import { startLoopbackSshd } from "../test-support/loopback-sshd.js";
import { startPrivateDocker } from "../test-support/private-docker.js";
import { makeTlsMaterial } from "../test-support/test-certs.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { median, row, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

interface Path {
  name: string;
  warm: Sandbox;
  cold: Sandbox;
  times: { warm: number[]; cold: number[] };
}

function ready(found: Awaited<ReturnType<typeof findEngine>>): FoundEngine {
  if (found.state !== "ready") throw new Error(found.message);
  return found;
}

async function main(): Promise<void> {
  const image = imageTagFor(readContext(sandboxImageDir()));
  const local = await findEngine();
  const localFound = ready(local);
  const localDocker = localFound.docker;
  const tls = makeTlsMaterial(`${tempDir("cm-bench-tls-")}/certs`);
  const port = await freePort();
  const engine = await startPrivateDocker({ port, ...tls });
  const sshd = await startLoopbackSshd(engine.dockerHost);
  const closers: (() => void)[] = [];
  const paths: Path[] = [];
  try {
    await engine.loadImage(localDocker, image);
    const viaTls = await findEngine({
      env: {
        DOCKER_HOST: `tcp://127.0.0.1:${port}`,
        DOCKER_TLS_VERIFY: "1",
        DOCKER_CERT_PATH: tls.clientDir,
      },
      home: tempDir(),
    });
    const viaSsh = await findEngine({ env: {}, home: sshd.home, preference: sshd.url });
    for (const found of [viaTls, viaSsh])
      if (found.state === "ready") closers.push(() => found.close?.());
    const owner = currentOwner("codemode-bench");
    for (const [name, found] of [
      ["local engine", localFound],
      ["remote engine over TLS (loopback)", ready(viaTls)],
      ["remote engine over SSH (loopback)", ready(viaSsh)],
    ] as const) {
      paths.push({
        name,
        warm: new Sandbox({ engine: found.engine, image, owner, poolSize: 1 }),
        cold: new Sandbox({ engine: found.engine, image, owner, poolSize: 0 }),
        times: { warm: [], cold: [] },
      });
    }
    for (let i = 0; i < ROUNDS; i++) {
      for (const { warm, cold, times } of paths) {
        await waitFor(() => warm.idleContainers === 1);
        let t = performance.now();
        await warm.run({ code: CODE });
        times.warm.push(performance.now() - t);
        t = performance.now();
        await cold.run({ code: CODE });
        times.cold.push(performance.now() - t);
        await Promise.all([warm.settle(), cold.settle()]);
      }
    }
  } finally {
    await Promise.all(paths.flatMap(({ warm, cold }) => [warm.close(), cold.close()]));
    for (const close of closers) close();
    if (local.state === "ready") local.close?.();
    await sshd.close();
    await engine.destroy();
    removeTempDirs();
  }
  const note = `median of ${ROUNDS} rounds, runc`;
  const base = paths[0]!;
  console.log(`print(1), median of ${ROUNDS} rounds (ratio to the local engine's same path)`);
  for (const kind of ["warm", "cold"] as const) {
    const baseMs = median(base.times[kind]);
    const what = kind === "warm" ? "warm pool" : "cold container";
    for (const path of paths) {
      console.log(
        row(
          `print(1), ${what}, ${path.name}`,
          median(path.times[kind]),
          baseMs,
          `local engine, ${what}`,
          note,
        ),
      );
    }
  }
}

await main();

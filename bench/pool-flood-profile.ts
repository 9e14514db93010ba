// Where a flood's time goes, without the host: per-container phases (create, attach, start,
// ready line, the run itself, remove) timed through dockerode, and the CPU spent by the
// engine (dockerd, containerd and its shims), by the containers (their cgroups) and by this
// process, per container. Variants, side by side in one run:
// - engine: start then remove, PARALLEL at a time (the engine's limit of bench/pool-burst.ts);
// - run: start, wait for the ready line, run print(1), remove (a cold run, no preload);
// - run+preload: the same with the runner's preload imports (what every warm refill pays).
import { readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import { runInContainer } from "../electron/host/sandbox/runner/run-session.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { benchEngine } from "./bench-engine.js";
import { median } from "./stats.js";

const CONTAINERS = Number(process.env.BENCH_ENGINE_CONTAINERS ?? 32);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 8);
/** Linux reports process CPU in clock ticks of 10 ms (USER_HZ). */
const CLK_TCK = 100;

type Group = "dockerd" | "containerd" | "shims" | "self" | "containers" | "machine";

/** CPU ms so far of the engine's long-lived processes, of the containers, of this process, of the machine. */
function cpuNow(): Record<Group, number> {
  const out: Record<Group, number> = {
    dockerd: 0,
    containerd: 0,
    shims: 0,
    self: 0,
    containers: 0,
    machine: 0,
  };
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    // utime, stime, cutime, cstime: fields 14-17 (1-based), here 11-14 after pid and comm.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const ms = (ticks * 1000) / CLK_TCK;
    if (comm === "dockerd") out.dockerd += ms;
    else if (comm === "containerd") out.containerd += ms;
    else if (comm.startsWith("containerd-shim")) out.shims += ms;
    else if (Number(entry) === process.pid) out.self += ms;
  }
  try {
    out.containers =
      Number(readFileSync("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage", "utf8")) / 1e6;
  } catch {
    out.containers = NaN;
  }
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1);
  const [user, nice, system, , , irq, softirq, steal] = cpu.map(Number);
  out.machine = ((user! + nice! + system! + irq! + softirq! + steal!) * 1000) / CLK_TCK;
  return out;
}

interface Phases {
  start: number;
  ready: number;
  run: number;
  remove: number;
}

async function main(): Promise<void> {
  const { engine, image, owner } = await benchEngine();

  const variant = async (label: string, mode: "engine" | "run" | "preload"): Promise<void> => {
    const phases: Phases[] = [];
    let left = CONTAINERS;
    const worker = async (): Promise<void> => {
      while (left > 0) {
        left--;
        const t0 = performance.now();
        const c = await SandboxContainer.start(engine, image, owner, "runc", mode === "preload");
        const t1 = performance.now();
        let t2 = t1;
        let t3 = t1;
        if (mode !== "engine") {
          if (!(await c.ready)) throw new Error("no ready line");
          t2 = performance.now();
          const result = await runInContainer(
            c,
            { code: "print(1)" },
            {},
            {
              deadlineCeilingSeconds: 30,
            },
          );
          if (result.stdout !== "1\n") throw new Error(JSON.stringify(result));
          t3 = performance.now();
        }
        await c.remove();
        const t4 = performance.now();
        phases.push({ start: t1 - t0, ready: t2 - t1, run: t3 - t2, remove: t4 - t3 });
      }
    };
    const before = cpuNow();
    const t = performance.now();
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    const seconds = (performance.now() - t) / 1000;
    const after = cpuNow();
    const per = (g: Group): string => ((after[g] - before[g]) / CONTAINERS).toFixed(0).padStart(5);
    const med = (k: keyof Phases): string =>
      median(phases.map((p) => p[k]))
        .toFixed(0)
        .padStart(5);
    console.log(
      `${label.padEnd(12)} ${(CONTAINERS / seconds).toFixed(2).padStart(5)}/s | median ms: start ${med("start")} ready ${med("ready")} run ${med("run")} remove ${med("remove")} | CPU ms per container: dockerd ${per("dockerd")} containerd ${per("containerd")} shims ${per("shims")} containers ${per("containers")} bench ${per("self")} machine ${per("machine")} (of ${((CONTAINERS ? 1000 * seconds * os.cpus().length : 0) / CONTAINERS).toFixed(0)} available)`,
    );
  };
  console.log(
    `${CONTAINERS} containers, ${PARALLEL} at a time, load ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`,
  );
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 1); round++) {
    await variant("engine", "engine");
    await variant("run", "run");
    await variant("run+preload", "preload");
  }
}

await main();

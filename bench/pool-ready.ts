// Waiting for a daemon's warm pool to be ready before a measured run, by a condition rather
// than a fixed time: on a busy machine a container takes seconds longer to start and (with
// preloading) to import its libraries, and a run sent before that would time a cold start, not
// the warm pool. The daemon runs in its own process, so its pool is seen from outside: the
// home's containers all running, and each idle (its CPU time no longer moving: the runner has
// finished its imports and waits for code, which is when the host pools it).
import type Dockerode from "dockerode";
import { homeContainers } from "../test-support/daemon.js";

/** Long enough for a loaded 2-core machine; the wait ends as soon as the pool is ready. */
export const POOL_READY_TIMEOUT_MS = 300_000;
/** A container whose CPU time does not move for this long is idle, waiting for code. */
const QUIET_MS = 600;
const POLL_MS = 150;

interface CpuStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
}

async function cpuNs(docker: Dockerode, id: string): Promise<number> {
  const stats = (await docker
    .getContainer(id)
    .stats({ stream: false, "one-shot": true } as { stream: false })) as CpuStats;
  return stats.cpu_stats?.cpu_usage?.total_usage ?? 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the home holds exactly `size` running containers (any number but none when
 * `size` is null: a pool that grew), none of which used CPU for QUIET_MS; throws after
 * `timeoutMs` saying what it saw last.
 */
export async function poolReady(
  docker: Dockerode,
  home: string,
  size: number | null,
  timeoutMs = POOL_READY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = "no containers";
  let quietSince: number | null = null;
  let last = new Map<string, number>();
  while (Date.now() < deadline) {
    const list = await homeContainers(docker, home);
    seen = `${list.length} containers (${list.map((c) => c.state).join(", ")})`;
    const count = size ?? Math.max(1, list.length);
    if (list.length === count && list.every((c) => c.state === "running")) {
      const now = new Map<string, number>();
      try {
        for (const { id } of list) now.set(id, await cpuNs(docker, id));
      } catch {
        // Removed between the list and the stats: look again.
        now.clear();
      }
      const still =
        now.size === count && [...now].every(([id, ns]) => last.get(id) === ns && ns > 0);
      if (!still) quietSince = null;
      else quietSince ??= Date.now();
      if (quietSince !== null && Date.now() - quietSince >= QUIET_MS) return;
      last = now;
    } else {
      quietSince = null;
      last = new Map();
    }
    await sleep(POLL_MS);
  }
  throw new Error(
    `the warm pool was not ready (${size ?? "all"} containers idle) after ${timeoutMs} ms; last seen ${seen}`,
  );
}

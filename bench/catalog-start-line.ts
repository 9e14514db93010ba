// What a big catalog costs every run: each run's start line carries every tool's name, stub,
// description and input schema (TOOLS and search_tools work on it inside the sandbox), up to
// SCHEMAS_SHOWN_TOTAL_BYTES of schemas, unless the catalog was staged in the warm
// container while it idled (runner-protocol.md): then the start line only says "staged".
// Warm-pool `print(len(TOOLS))` side by side in one process, rounds interleaved: no catalog (the
// baseline), 100 tools with 1 KiB schemas (a big real server's size), and a catalog at the cap,
// each sent at start and staged.
import type Dockerode from "dockerode";
import { DockerApiEngine } from "../electron/host/sandbox/container-engine/docker-api-engine.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import type { SandboxTool } from "../electron/host/core/ports/run-types.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { freezeTools, toolsJson } from "../electron/host/core/ports/tools-json.js";
import { report } from "./report.js";
import { median } from "./stats.js";
import { SCHEMAS_SHOWN_TOTAL_BYTES } from "../electron/host/core/catalog/sandbox-tools.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const KiB = 1024;
/** The pause before each run, as between a client's runs: a staged catalog is parsed by then. */
const IDLE_MS = 200;

/** `count` tools whose input schemas are each about `schemaBytes` long. */
function catalog(count: number, schemaBytes: number): SandboxTool[] {
  return Array.from({ length: count }, (_, i) => {
    const properties: Record<string, unknown> = {};
    for (let k = 0; JSON.stringify(properties).length < schemaBytes - 40; k++) {
      properties[`param_${k}`] = { type: "string", description: "what this parameter is for" };
    }
    const names = Object.keys(properties).slice(0, 5);
    return {
      name: `server__tool_${i}`,
      stub: `async def server__tool_${i}(${names.map((n) => `${n}: str`).join(", ")}) -> Any: ...`,
      description: "Does one thing of the server's, described in a sentence or two. ".repeat(3),
      schema: JSON.stringify({ type: "object", properties }),
    };
  });
}

const schemaBytes = (tools: readonly SandboxTool[]): number =>
  tools.reduce((sum, t) => sum + Buffer.byteLength(t.schema ?? "", "utf8"), 0);

interface Measure {
  what: string;
  tools: readonly SandboxTool[];
  staged: boolean;
  times: number[];
}

async function main(): Promise<void> {
  const perTool = 4 * KiB;
  // Each schema comes out a little over perTool: as many as fit under the cap.
  const atCap = freezeTools(
    catalog(Math.floor(SCHEMAS_SHOWN_TOTAL_BYTES / (perTool + 100)), perTool),
  );
  if (schemaBytes(atCap) > SCHEMAS_SHOWN_TOTAL_BYTES) throw new Error("over the cap");
  const hundred = freezeTools(catalog(100, KiB));
  const plan: Measure[] = [{ what: "no catalog", tools: [], staged: false, times: [] }];
  for (const [what, tools] of [
    ["100 tools, 1 KiB schemas", hundred],
    [`${atCap.length} tools, 4 KiB schemas (the cap)`, atCap],
  ] as const) {
    plan.push({ what, tools, staged: false, times: [] }, { what, tools, staged: true, times: [] });
  }
  // What the warm container started next gets staged: the pool refills as a run takes one.
  let staging: readonly SandboxTool[] | null = null;
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const sandbox = new Sandbox({
    engine: status.engine,
    image,
    owner: currentOwner("codemode-bench"),
    poolSize: 1,
    stagedTools: () => staging,
  });
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const [k, measure] of plan.entries()) {
        // A warm container idle and ready, as a run that comes after a pause finds it, staged
        // with this measure's catalog or with none.
        await sandbox.poolFilled();
        await sandbox.settle();
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
        const next = plan[(k + 1) % plan.length]!;
        staging = next.staged ? next.tools : null;
        const t = performance.now();
        const result = await sandbox.run({ code: "print(len(TOOLS))", tools: measure.tools });
        measure.times.push(performance.now() - t);
        if (result.stdout !== `${measure.tools.length}\n`) {
          throw new Error(`unexpected result ${JSON.stringify(result)}`);
        }
      }
    }
  } finally {
    await sandbox.close();
  }
  const memory = await idleMemory(status.docker, atCap);
  // The first round's first run found a container staged with nothing: the plan starts unstaged.
  const base = median(plan[0]!.times);
  console.log(`warm print(len(TOOLS)), median of ${ROUNDS}, no catalog: ${base.toFixed(1)} ms`);
  for (let k = 1; k < plan.length; k += 2) {
    const sent = plan[k]!;
    const staged = plan[k + 1]!;
    const bytes = Buffer.byteLength(JSON.stringify(sent.tools), "utf8");
    const sentMs = median(sent.times);
    report({
      what: `warm-pool \`print(len(TOOLS))\` with a catalog of ${sent.what}: ${(bytes / KiB).toFixed(0)} KiB in each run's start line, median`,
      value: sentMs,
      unit: "ms",
      baseline: base,
      baselineWhat: "the same run with no catalog",
      note: "what a catalog sent at start costs every run",
    });
    report({
      what: `the same with the catalog staged in the warm container while it idled (the start line says "staged"), median`,
      value: median(staged.times),
      unit: "ms",
      baseline: sentMs,
      baselineWhat: "the catalog sent at start",
      note: `${(median(staged.times) / base).toFixed(2)}x the run with no catalog`,
    });
  }
  report({
    what: `memory of an idle warm container with the catalog at the cap staged (usage minus inactive file cache), median of ${MEMORY_SAMPLES}`,
    value: median(memory.staged) / MiB,
    unit: "MiB",
    baseline: median(memory.plain) / MiB,
    baselineWhat: "an idle warm container with nothing staged",
    note: "what staging costs while a container waits",
  });
}

const MiB = 1024 * KiB;
const MEMORY_SAMPLES = 3;

interface MemoryStats {
  memory_stats?: { usage?: number; stats?: Record<string, number> };
}

/** Memory (as `docker stats` computes it) of idle ready containers, staged with `tools` or not. */
async function idleMemory(
  docker: Dockerode,
  tools: readonly SandboxTool[],
): Promise<{ staged: number[]; plain: number[] }> {
  const owner = currentOwner("codemode-bench");
  const image = imageTagFor(readContext(sandboxImageDir()));
  const out = { staged: [] as number[], plain: [] as number[] };
  for (let i = 0; i < MEMORY_SAMPLES; i++) {
    const engine = new DockerApiEngine({ docker, endpoint: "bench" });
    const staged = await SandboxContainer.start(engine, image, owner);
    const plain = await SandboxContainer.start(engine, image, owner);
    try {
      await Promise.all([staged.ready, plain.ready]);
      staged.stage(toolsJson(tools));
      // Parsed by then, and settled.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const [container, into] of [
        [staged, out.staged],
        [plain, out.plain],
      ] as const) {
        const stats = (await docker
          .getContainer(container.id)
          .stats({ stream: false })) as MemoryStats;
        const usage = stats.memory_stats?.usage ?? 0;
        into.push(usage - (stats.memory_stats?.stats?.inactive_file ?? 0));
      }
    } finally {
      await Promise.all([staged.remove(), plain.remove()]);
    }
  }
  return out;
}

await main();

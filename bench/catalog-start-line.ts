// What a big catalog costs every run: each run's start line carries every tool's name, stub,
// description and input schema (TOOLS and search_tools work on it inside the sandbox), up to
// CATALOG_LIMITS.schemasShownTotalBytes of schemas. Warm-pool `print(len(TOOLS))` side by side
// in one process, rounds interleaved: no catalog (the baseline), 100 tools with 1 KiB schemas
// (a big real server's size), and a catalog at the cap.
import { findDocker } from "../electron/host/docker/docker-status.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { currentOwner } from "../electron/host/sandbox/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import type { SandboxTool } from "../electron/host/sandbox/run-types.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { CATALOG_LIMITS } from "../shared/limits.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const KiB = 1024;

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

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const sandbox = new Sandbox({
    docker: status.docker,
    image,
    owner: currentOwner("codemode-bench"),
    poolSize: 1,
  });
  const perTool = 4 * KiB;
  // Each schema comes out a little over perTool: as many as fit under the cap.
  const atCap = catalog(
    Math.floor(CATALOG_LIMITS.schemasShownTotalBytes / (perTool + 100)),
    perTool,
  );
  if (schemaBytes(atCap) > CATALOG_LIMITS.schemasShownTotalBytes) throw new Error("over the cap");
  const sets: { what: string; tools: SandboxTool[]; times: number[] }[] = [
    { what: "no catalog", tools: [], times: [] },
    { what: "100 tools, 1 KiB schemas", tools: catalog(100, KiB), times: [] },
    { what: `${atCap.length} tools, 4 KiB schemas (the cap)`, tools: atCap, times: [] },
  ];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const set of sets) {
        // A warm container idle and ready, as a run that comes after a pause finds it.
        await sandbox.poolFilled();
        await sandbox.settle();
        const t = performance.now();
        const result = await sandbox.run({ code: "print(len(TOOLS))", tools: set.tools });
        set.times.push(performance.now() - t);
        if (result.stdout !== `${set.tools.length}\n`) {
          throw new Error(`unexpected result ${JSON.stringify(result)}`);
        }
      }
    }
  } finally {
    await sandbox.close();
  }
  const base = median(sets[0]!.times);
  console.log(`warm print(len(TOOLS)), median of ${ROUNDS}, no catalog: ${base.toFixed(1)} ms`);
  for (const set of sets.slice(1)) {
    const bytes = Buffer.byteLength(JSON.stringify(set.tools), "utf8");
    report({
      what: `warm-pool \`print(len(TOOLS))\` with a catalog of ${set.what}: ${(bytes / KiB).toFixed(0)} KiB in each run's start line, median`,
      value: median(set.times),
      unit: "ms",
      baseline: base,
      baselineWhat: "the same run with no catalog",
      note: "what a catalog costs every run",
    });
  }
}

await main();

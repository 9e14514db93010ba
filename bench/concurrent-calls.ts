// 200 calls to the toy server's `sleep` tool (50 ms each), all in one run_python run,
// through a real `codemode serve` process and a real MCP client (the SDK's Client over
// stdio): gathered with asyncio.gather, then one after another in a Python loop. Each is
// shown next to the serial sum (200 x 50 ms = 10 s). The bridge lets each server have up to
// BRIDGE_LIMITS.defaultServerConcurrency calls in flight, each burst starting at
// serverConcurrencyStart and growing while the server keeps up; serve cannot change that, so
// a second part runs the same engine in-process under other settings, side by side: a
// setting at or under the start is a fixed cap, so 16 is exactly the default before the
// slots adapted (a fixed 16).

import os from "node:os";
import { BRIDGE_LIMITS, RUN_LIMITS } from "../shared/limits.js";
import { discardBridgeEvents } from "../electron/host/core/bridge/bridge-events.js";
import { TaintRegistry } from "../electron/host/core/bridge/taint.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { CodeModeEngine } from "../electron/host/core/engine/code-mode-engine.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { singleServerConfig } from "../electron/host/servers/config/server-config.js";
import { ServerSet } from "../electron/host/servers/server-set.js";
import type { RunResult } from "../shared/run-result.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { assertServeBuilt, startServe, TOY_COMMAND } from "../test-support/serve-client.js";
import { record } from "./report.js";

const CALLS = 200;
const SLEEP_MS = 50;
const SERIAL_MS = CALLS * SLEEP_MS;
const CAPS = [8, 16, 32, 64];

const GATHERED = `import asyncio
results = await asyncio.gather(*(sleep({"ms": ${SLEEP_MS}}) for _ in range(${CALLS})))
print(sum(r == "slept" for r in results))`;

const LOOPED = `ok = 0
for _ in range(${CALLS}):
    ok += (await sleep({"ms": ${SLEEP_MS}})) == "slept"
print(ok)`;

/**
 * Each run gets the longest deadline a run may have: 200 calls one after another take 10 s at
 * best and several times that on a busy machine, past the default deadline.
 */
const DEADLINE_S = RUN_LIMITS.maxDeadlineSeconds;

function line(label: string, ms: number): string {
  return record({
    what: `${CALLS} calls of a ${SLEEP_MS} ms tool in one run, ${label}`,
    value: ms,
    baseline: SERIAL_MS,
    baselineWhat: `the serial sum, ${CALLS} x ${SLEEP_MS} ms (computed)`,
  });
}

function check(result: RunResult, label: string): void {
  if (result.stdout.trim() !== String(CALLS) || result.error !== null) {
    const how = result.stopped ?? result.error ?? `printed ${JSON.stringify(result.stdout.trim())}`;
    throw new Error(`${label}: not every call slept (${how}): ${JSON.stringify(result)}`);
  }
}

async function throughServe(): Promise<void> {
  const session = await startServe({ args: ["--allow", "sleep", "--", ...TOY_COMMAND] });
  try {
    await session.run("print(1)"); // the first run pays for nothing the others do not
    for (const [label, code] of [
      ["asyncio.gather", GATHERED],
      ["a Python loop, one call after another", LOOPED],
    ] as const) {
      const started = performance.now();
      const result = await session.run(code, { timeout_s: DEADLINE_S });
      const wall = performance.now() - started;
      check(result, label);
      console.log(line(`${label}, through \`codemode serve\` (default settings)`, wall));
    }
  } finally {
    await session.close();
  }
}

async function inProcess(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const servers = new ServerSet(
    singleServerConfig(process.execPath, [TOY_SERVER_JS], {
      allow: ["sleep"],
      private: [],
      env: {},
    }),
  );
  await servers.open();
  const sandbox = new Sandbox({
    engine: status.engine,
    image,
    owner: currentOwner("codemode-bench"),
  });
  try {
    await sandbox.run({ code: "print(1)" }); // as above: warm the engine's caches first
    for (const cap of CAPS) {
      const engine = new CodeModeEngine({
        servers,
        sandbox,
        taint: new TaintRegistry(),
        events: discardBridgeEvents,
        prefixWithServer: false,
        settings: { serverConcurrency: cap },
      });
      try {
        const started = performance.now();
        const result = await engine.run(
          { code: GATHERED, timeout_s: DEADLINE_S },
          { client: "bench" },
        );
        const wall = performance.now() - started;
        check(result, `cap ${cap}`);
        const mark =
          cap === BRIDGE_LIMITS.defaultServerConcurrency
            ? " (default now)"
            : cap === BRIDGE_LIMITS.serverConcurrencyStart
              ? " (fixed: the default before)"
              : "";
        const how =
          cap > BRIDGE_LIMITS.serverConcurrencyStart
            ? `from ${BRIDGE_LIMITS.serverConcurrencyStart} up to ${cap}`
            : `cap ${cap}`;
        console.log(
          line(`asyncio.gather, in-process engine, per-server slots ${how}${mark}`, wall),
        );
      } finally {
        engine.close();
      }
    }
  } finally {
    await Promise.allSettled([sandbox.close(), servers.close()]);
  }
}

async function main(): Promise<void> {
  assertToyServerBuilt();
  assertServeBuilt();
  console.log(
    `${CALLS} calls to toy sleep(${SLEEP_MS} ms) in one run; per-server slots from ` +
      `${BRIDGE_LIMITS.serverConcurrencyStart} up to ` +
      `${BRIDGE_LIMITS.defaultServerConcurrency} (the defaults); load average ` +
      `${os.loadavg()[0]?.toFixed(1) ?? "?"}`,
  );
  await throughServe();
  await inProcess();
}

await main();

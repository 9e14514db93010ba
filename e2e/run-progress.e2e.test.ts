// A run longer than the client's request timeout survives when the client resets its timeout
// on progress: Code Mode sends notifications/progress while a run goes, through every transport
// (the shim, Streamable HTTP, serve). Real daemon, real shim and serve processes, the SDK's
// Client, real Docker. The client's timeout is lowered (not the 60 s default) to keep it short;
// the progress interval is the production one.

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOST_LIMITS } from "../shared/limits.js";
import { runResultIn, type RunResult } from "../shared/run-result.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  startDaemon,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { freePort } from "../test-support/free-port.js";
import { startServe, TOY_COMMAND } from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";

const fx = await dockerOrSkip();

/**
 * The client gives up after this long without a progress notification: the host's interval and
 * 3 s for a notification to come through the shim, HTTP or serve while four runs start on the
 * loaded machine (1.5 s was all the slack before, tight beside the other test files).
 */
const CLIENT_TIMEOUT_MS = HOST_LIMITS.runProgressIntervalMs + 3_000;
/** The run sleeps longer than the client's timeout, well inside the default deadline. */
const RUN_SECONDS = Math.ceil((CLIENT_TIMEOUT_MS + 2_000) / 1000);
const CODE = `import asyncio\nawait asyncio.sleep(${RUN_SECONDS})\nprint("survived")`;

interface Outcome {
  result: RunResult;
  progress: Progress[];
  elapsedMs: number;
}

/** run_python the way an SDK client asks for progress and resets its timeout on it. */
async function longRun(client: Client, resetTimeoutOnProgress: boolean): Promise<Outcome> {
  const progress: Progress[] = [];
  const started = Date.now();
  const reply = await client.callTool(
    { name: "run_python", arguments: { code: CODE } },
    CallToolResultSchema,
    {
      timeout: CLIENT_TIMEOUT_MS,
      resetTimeoutOnProgress,
      onprogress: (p) => progress.push(p),
    },
  );
  expect(reply.isError).not.toBe(true);
  return {
    result: runResultIn(reply)!,
    progress,
    elapsedMs: Date.now() - started,
  };
}

function expectSurvived(outcome: Outcome): void {
  expect(outcome.result.stdout).toBe("survived\n");
  expect(outcome.result.timed_out).toBe(false);
  expect(outcome.elapsedMs).toBeGreaterThan(CLIENT_TIMEOUT_MS);
  expect(outcome.progress.length).toBeGreaterThanOrEqual(1);
  // Growing, as the spec asks, with a message a client can show.
  const values = outcome.progress.map((p) => p.progress);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  expect(new Set(values).size).toBe(values.length);
  expect(outcome.progress[0]?.message).toMatch(/^running for \d+ s$/);
}

beforeAll(() => {
  assertHostBuilt();
});

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("progress during a run", () => {
  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
    removeTempDirs();
  });

  it("a run longer than the client's timeout survives with resetTimeoutOnProgress, through the shim, Streamable HTTP and serve", async () => {
    const home = makeHome();
    const port = await freePort();
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ httpEnabled: true, httpPort: port }),
    );
    await startDaemon(home);
    const shim = await connectShim(home, { name: "progress-shim", version: "1" });

    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const http = new Client({ name: "progress-http", version: "1" });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const serve = await startServe({ args: ["--", ...TOY_COMMAND] });

    try {
      const [viaShim, viaHttp, viaServe, plain] = await Promise.allSettled([
        longRun(shim.client, true),
        longRun(http, true),
        longRun(serve.client, true),
        // The same run from a client that does not reset on progress: its timeout cuts it,
        // which is what every client did before progress was sent.
        longRun(shim.client, false),
      ]);
      for (const outcome of [viaShim, viaHttp, viaServe]) {
        if (outcome.status === "rejected") throw outcome.reason;
        expectSurvived(outcome.value);
      }
      expect(plain.status).toBe("rejected");
      const reason = (plain as PromiseRejectedResult).reason as unknown;
      expect(reason).toBeInstanceOf(McpError);
      expect((reason as McpError).code).toBe(ErrorCode.RequestTimeout);
    } finally {
      await http.close();
      await shim.close();
      await serve.close();
    }
  });
});

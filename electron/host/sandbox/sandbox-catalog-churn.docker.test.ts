// A wrapped server can change the catalog at every listing: it unlists a tool and lists it again
// as pinned (no review needed to come back), once a second under the relist pacing. Each change
// used to replace every idle container staged with the other catalog at once: a container
// start (and with preloading ~0.4 s of CPU) per idle container, every second, for as long as
// the server liked. Now a change replaces them at most once per
// POOL_CATALOG_REVIEW_MIN_INTERVAL_MS, changes between collapsing into one review at its end.
// Real image, real pool.
import { afterAll, describe, expect, it, vi } from "vitest";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../test-support/docker.js";
import { until } from "../../../test-support/wait.js";
import type { CallOutcome, SandboxTool } from "../core/ports/run-types.js";
import { SandboxContainer } from "./containers/sandbox-container.js";
import { Sandbox, POOL_CATALOG_REVIEW_MIN_INTERVAL_MS } from "./sandbox.js";
import { freezeTools } from "../core/ports/tools-json.js";

const fx = await dockerOrSkip();

const tool = (name: string): SandboxTool => ({
  name,
  stub: `async def ${name}() -> str: ...`,
  description: `the ${name} tool`,
  schema: null,
});
const WITH = freezeTools([tool("stays"), tool("comes_and_goes")]);
const WITHOUT = freezeTools([tool("stays")]);
const POOL = 2;
/** Even, so it ends on WITH. */
const FLIPS = 8;
/**
 * Half the relist pacing's second: faster than a server can flip, and the flips end well inside
 * the review interval even when a loaded machine fires each timer late.
 */
const FLIP_GAP_MS = 500;

const echo = (name: string): Promise<CallOutcome> => Promise.resolve({ ok: true, value: name });

describe.skipIf(!fx)("a catalog that a server keeps flipping", () => {
  afterAll(async () => {
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("replaces the idle containers at most once per review interval, and stages the last catalog", async () => {
    let current: readonly SandboxTool[] = WITH;
    const sandbox = new Sandbox({
      engine: fx!.engine,
      image: fx!.image,
      owner: testOwner(),
      poolSize: POOL,
      stagedTools: () => current,
    });
    const startSpy = vi.spyOn(SandboxContainer, "start");
    const sends = vi.spyOn(SandboxContainer.prototype, "sendStart");
    try {
      expect(await sandbox.poolFilled()).toBe(POOL);
      const before = startSpy.mock.calls.length;
      const flipsStarted = performance.now();
      // The first flip replaces the pool at once; its refills are staged with the catalog of
      // the moment each is ready, so they are let be ready before the next flip: then they hold
      // the first flip's catalog, which the review at the interval's end must replace, however
      // long a container takes to start on this machine.
      current = WITHOUT;
      sandbox.catalogChanged();
      expect(await sandbox.poolFilled()).toBe(POOL);
      for (let i = 1; i < FLIPS; i++) {
        current = current === WITH ? WITHOUT : WITH;
        sandbox.catalogChanged();
        await new Promise((resolve) => setTimeout(resolve, FLIP_GAP_MS));
      }
      const during = startSpy.mock.calls.length - before;
      // The first change replaces the pool at once; the rest wait for the review interval.
      expect(performance.now() - flipsStarted).toBeLessThan(POOL_CATALOG_REVIEW_MIN_INTERVAL_MS);
      expect(during).toBeLessThanOrEqual(POOL);

      // The review at the interval's end stages the catalog as it is then: the next run is staged.
      await until(
        () => startSpy.mock.calls.length - before >= 2 * POOL,
        "the review after the interval",
        POOL_CATALOG_REVIEW_MIN_INTERVAL_MS + 5_000,
      );
      await sandbox.poolFilled();
      const result = await sandbox.run(
        { code: "print(sorted(TOOLS))", tools: current },
        { onCall: echo },
      );
      expect(result).toMatchObject({ stdout: "['comes_and_goes', 'stays']\n", error: null });
      expect(String(sends.mock.calls.at(-1)?.[0])).toContain('"tools":"staged"');
    } finally {
      startSpy.mockRestore();
      sends.mockRestore();
      await sandbox.close();
    }
  }, 120_000);
});

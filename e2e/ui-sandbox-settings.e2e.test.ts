// The Sandbox page's preload switch and warm pool fields, clicked as a user would:
// `codemode daemon --ui` as a real process, Debian's Chromium, real Docker and a real MCP client
// over `codemode shim`. Each saved value is read back from settings.json and seen at work in the
// running host: the code's own view (which container ran it, is pandas already imported) and
// the engine's list of this home's containers. The per-server concurrency field says what it
// protects.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POOL_LIMITS, SETTINGS_BOUNDS } from "../shared/limits.js";
import { descriptionOf, waitUntil } from "../test-support/browser.js";
import { connectShim, homeContainers } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { connectWsApi, type WsApi } from "../test-support/ws-api.js";
import { POOL_LEAN_WINDOW_MS } from "../electron/host/sandbox/warm-pool-options.js";

const fx = await dockerOrSkip();

/**
 * Which container ran the code (Docker names a container's host after its id) and whether
 * pandas was imported before the code started (a preloading warm container imports it).
 */
const PROBE = "import socket, sys\nprint(socket.gethostname(), 'pandas' in sys.modules)";
/** Shorter than the default (60 s) by far, so a shrink the test sees is this value's doing. */
const IDLE_SECONDS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!fx)("the Sandbox page's preload and warm pool settings", () => {
  const ui = useUiPage({ homePrefix: "codemode-ui-sandbox-", docker: fx?.docker });
  let shim: McpSession;
  let ws: WsApi;
  /** Hostnames of every run so far: their containers are not the pool's. */
  const runHosts: string[] = [];

  beforeAll(async () => {
    await ui.nav("Sandbox").click();
    shim = await connectShim(ui.home, { name: "e2e-sandbox-settings", version: "1" });
    ws = await connectWsApi(ui.daemon.port, { ticket: await ui.daemon.ticket() });
  });

  afterAll(async () => {
    ws?.close();
    await shim?.close().catch(() => undefined);
  });

  const field = (label: string): Locator => ui.page.getByLabel(label, { exact: true });
  const saved = (): Record<string, unknown> => {
    const file = path.join(ui.home, "settings.json");
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)
      : {};
  };
  const save = async (): Promise<void> => {
    await ui.page.getByRole("button", { name: "Save limits" }).click();
    await ui.page.getByText("Saved. New runs use these limits.").waitFor();
  };
  /** The warm pool's containers of this home: any state, the runs' own left out. */
  const poolContainers = async (): Promise<string[]> =>
    (await homeContainers(fx!.docker, ui.home))
      .map((c) => c.id)
      .filter((id) => !runHosts.some((host) => id.startsWith(host)));
  const probe = async (): Promise<{ host: string; pandas: boolean }> => {
    const result = await shim.run(PROBE);
    expect(result.error, result.stderr).toBeNull();
    const [host, pandas] = result.stdout.trim().split(" ");
    runHosts.push(host!);
    return { host: host!, pandas: pandas === "True" };
  };

  it("says what the per-server concurrency protects", async () => {
    await ui.page.locator("details.disclosure", { hasText: "Advanced" }).locator("summary").click();
    expect(await descriptionOf(field("Calls to one server at the same time"))).toMatch(
      /Protects the server \(and any service behind it\) from a burst of calls/,
    );
  });

  it("preloading is on by default; off and saved, the next warm container has no pandas", async () => {
    const toggle = ui.page.getByRole("switch", { name: "Load data libraries ahead" });
    expect(await toggle.isChecked()).toBe(true);
    // The pool's first container, made to preload.
    const before = await waitUntil(poolContainers, (ids) => ids.length > 0, "a warm container");
    await toggle.click();
    await save();
    expect(saved().sandboxPreload).toBe(false);
    // The host replaced the idle container with one that does not preload.
    await waitUntil(
      poolContainers,
      (ids) => ids.some((id) => !before.includes(id)),
      "a new warm container",
      60_000,
    );
    // A run that finds no warm container ready gets a cold one (which never preloads, so it
    // would prove nothing): only a run on a container that was there before it counts. Such a
    // miss also makes the refills after it skip preloading for POOL_LEAN_WINDOW_MS
    // whatever the setting, so after a miss the next run waits until a preloading pool would
    // have swapped its lean containers back: with the switch ignored, that run finds pandas.
    let missed = false;
    const warm = await waitUntil(
      async () => {
        await sleep(missed ? 3 * POOL_LEAN_WINDOW_MS : 1000);
        const there = await poolContainers();
        const run = await probe();
        const onWarm = there.some((id) => id.startsWith(run.host));
        missed ||= !onWarm;
        return { ...run, warm: onWarm };
      },
      (run) => run.warm,
      "a run on a warm container",
      180_000,
    );
    expect(warm.pandas).toBe(false);
  }, 240_000);

  it("the pool fields show their bounds and refuse a value outside them on the field", async () => {
    const grows = field("Sandboxes kept ready when busy");
    const shrink = field("Back to fewer after (seconds)");
    expect(await descriptionOf(grows)).toContain(`0 to ${POOL_LIMITS.growMaxCeiling}.`);
    expect(await descriptionOf(shrink)).toContain(
      `${POOL_LIMITS.minIdleSeconds} to ${POOL_LIMITS.maxIdleSeconds}.`,
    );
    const before = saved();
    await grows.fill(String(POOL_LIMITS.growMaxCeiling + 1));
    await shrink.fill(String(POOL_LIMITS.minIdleSeconds - 1));
    await ui.page.getByRole("button", { name: "Save limits" }).click();
    await waitUntil(
      () => descriptionOf(grows),
      (text) => text.includes(`Enter a whole number from 0 to ${POOL_LIMITS.growMaxCeiling}.`),
      "the error on Sandboxes kept ready when busy",
    );
    expect(await grows.getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(shrink)).toContain(
      `Enter a whole number from ${POOL_LIMITS.minIdleSeconds} to ${POOL_LIMITS.maxIdleSeconds}.`,
    );
    expect(saved()).toEqual(before);
    // The host checks on its own too, naming the setting: a client other than this page.
    await expect(
      ws.request("settings.save", { warmPoolMaxSize: POOL_LIMITS.growMaxCeiling + 1 }),
    ).rejects.toThrow(
      new RegExp(`warmPoolMaxSize.*must be from 0 to ${POOL_LIMITS.growMaxCeiling}`),
    );
    await ui.page.getByRole("button", { name: "Discard changes" }).click();
  });

  it("every number field shows the range the host takes and refuses one outside it on the field", async () => {
    // Concurrent runs and Ask-first wait said no range, and the page sent any number: the
    // host's refusal came back instead of the field's own.
    const runs = field("Runs at the same time");
    const wait = field("Time to answer “Ask first” (seconds)");
    const { maxConcurrentRuns, approvalTimeoutSeconds } = SETTINGS_BOUNDS;
    expect(await descriptionOf(runs)).toContain(
      `${maxConcurrentRuns.min} to ${maxConcurrentRuns.max}.`,
    );
    expect(await descriptionOf(wait)).toContain(
      `${approvalTimeoutSeconds.min} to ${approvalTimeoutSeconds.max}.`,
    );
    const before = saved();
    await runs.fill(String(maxConcurrentRuns.max + 1));
    await wait.fill(String(approvalTimeoutSeconds.max + 1));
    await ui.page.getByRole("button", { name: "Save limits" }).click();
    await waitUntil(
      () => descriptionOf(runs),
      (text) =>
        text.includes(
          `Enter a whole number from ${maxConcurrentRuns.min} to ${maxConcurrentRuns.max}.`,
        ),
      "the error on Runs at the same time",
    );
    expect(await descriptionOf(wait)).toContain(
      `Enter a whole number from ${approvalTimeoutSeconds.min} to ${approvalTimeoutSeconds.max}.`,
    );
    expect(saved()).toEqual(before);
    await ui.page.getByRole("button", { name: "Discard changes" }).click();
  });

  it("a pool that may not grow stays empty through a burst", async () => {
    await field("Sandboxes kept ready").fill("0");
    await field("Sandboxes kept ready when busy").fill("0");
    await save();
    expect(saved()).toMatchObject({ warmPoolSize: 0, warmPoolMaxSize: 0 });
    await waitUntil(poolContainers, (ids) => ids.length === 0, "the idle containers removed");
    // Two runs at once: the second finds the pool empty right after the first (a burst).
    await Promise.all([probe(), probe()]);
    await sleep(2000);
    expect(await poolContainers()).toEqual([]);
  });

  it("allowed to grow, a burst grows the pool, and it shrinks back after the idle time", async () => {
    await field("Sandboxes kept ready when busy").fill("2");
    await field("Back to fewer after (seconds)").fill(String(IDLE_SECONDS));
    await save();
    expect(saved()).toMatchObject({
      warmPoolSize: 0,
      warmPoolMaxSize: 2,
      warmPoolIdleSeconds: IDLE_SECONDS,
    });
    const burstAt = Date.now();
    await Promise.all([probe(), probe()]);
    // Generous: the refill is a container start, slow on a busy machine.
    const grown = await waitUntil(
      poolContainers,
      (ids) => ids.length > 0,
      "the pool grown",
      60_000,
    );
    expect(grown.length).toBeLessThanOrEqual(2);
    await waitUntil(
      poolContainers,
      (ids) => ids.length === 0,
      `the pool shrunk after ${IDLE_SECONDS} s idle`,
      45_000,
    );
    // Well before the default idle time: the saved one was applied.
    expect(Date.now() - burstAt).toBeLessThan(POOL_LIMITS.defaultIdleSeconds * 1000);
  }, 120_000);
});

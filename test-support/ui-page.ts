// The setup every browser e2e file shares, in one place: a fresh CODEMODE_HOME, `codemode daemon
// --ui` on it as a real process, Debian's Chromium with one page on a link of the daemon's (the
// one-time ticket in its hash signs it in), and the teardown (browser closed, the daemon stopped with exit 0,
// every process, container and temporary directory the helpers started or made removed).
import type Dockerode from "dockerode";
import type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  Locator,
  Page,
} from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import {
  assertUiBuilt,
  launchChromium,
  startUiDaemon,
  UI_TIMEOUT_MS,
  type UiDaemon,
} from "./browser.js";
import { assertHostBuilt, cleanUpHosts, makeHome } from "./daemon.js";
import { removeTempDirs } from "./temp-dir.js";

export interface UiPageOptions {
  /** Prefix of the temporary CODEMODE_HOME. */
  homePrefix: string;
  /** The engine whose containers of this home are removed at the end (Docker-backed files). */
  docker?: Dockerode;
  /** Runs on the empty home before the daemon starts (servers.json, settings.json, audit). */
  prepare?: (home: string) => void | Promise<void>;
  /** More environment for the daemon (DOCKER_HOST of a stand-in engine, ...). */
  env?: Record<string, string>;
  /** Over the defaults: 1280×860, light, en-US. */
  context?: BrowserContextOptions;
  /** Browser permissions granted to the daemon's origin (clipboard-read, ...). */
  permissions?: string[];
  /** False: the page stays blank (a test opens the URL itself). Default true. */
  open?: boolean;
  /** Runs after the daemon stopped with exit 0, before the clean-up (what it left behind). */
  afterStop?: (daemon: UiDaemon) => void | Promise<void>;
}

export interface UiPage {
  readonly home: string;
  readonly daemon: UiDaemon;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** A link of the main navigation ("Servers", "Sandbox", "Audit log", ...). */
  nav(label: string, page?: Page): Locator;
}

/**
 * Registers the beforeAll and afterAll of a browser e2e file (call it inside `describe`, before
 * the file's own hooks: its own afterAll then runs first, while the daemon still runs) and
 * returns the started parts; reading one before beforeAll ran throws.
 */
export function useUiPage(options: UiPageOptions): UiPage {
  const home = makeHome(options.homePrefix);
  let started: { daemon: UiDaemon; browser: Browser; context: BrowserContext; page: Page } | null =
    null;
  let daemon: UiDaemon | undefined;
  let browser: Browser | undefined;
  const get = () => {
    if (!started) throw new Error("useUiPage: read before its beforeAll ran");
    return started;
  };

  beforeAll(async () => {
    assertHostBuilt();
    assertUiBuilt();
    await options.prepare?.(home);
    daemon = await startUiDaemon(home, undefined, options.env);
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      colorScheme: "light",
      locale: "en-US",
      ...options.context,
    });
    if (options.permissions) {
      await context.grantPermissions(options.permissions, { origin: daemon.origin });
    }
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    if (options.open !== false) await page.goto(await daemon.newLink());
    started = { daemon, browser, context, page };
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    try {
      if (daemon) {
        expect(await daemon.stop(), daemon.stderr()).toEqual({ code: 0, signal: null });
        await options.afterStop?.(daemon);
      }
    } finally {
      await cleanUpHosts(options.docker);
      // Last: the daemon's home, and any other directory the file made with tempDir().
      removeTempDirs();
    }
  });

  return {
    home,
    get daemon() {
      return get().daemon;
    },
    get browser() {
      return get().browser;
    },
    get context() {
      return get().context;
    },
    get page() {
      return get().page;
    },
    nav: (label, page) =>
      (page ?? get().page).getByRole("navigation", { name: "Main" }).getByRole("link", {
        name: label,
      }),
  };
}

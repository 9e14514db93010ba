// The browser side of the UI e2e tests: `codemode daemon --ui` as a real process (its URL read
// from stdout, as a user copies it), Debian's Chromium driven by playwright-core, polling
// helpers in the spirit of Playwright's web-first assertions (playwright-core has no
// `expect`), and screenshots of a page in light and dark.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { requestUiLink } from "../electron/host/cli/ui-link-request.js";
import { CODEMODE_BIN, hostEnv } from "./daemon.js";
import { ticketOf } from "./ws-api.js";
import { until } from "./wait.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where the UI tests put their screenshots (git-ignored). */
export const ARTIFACTS_DIR = path.join(root, "e2e", "artifacts");

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** How long a UI wait may take before the test fails (2 cores, a container per run). */
export const UI_TIMEOUT_MS = 15_000;

/**
 * The daemon serves `renderer/dist`: a missing or stale UI build would make the tests prove
 * things about an old UI. Throws, naming the command, when a renderer source is newer.
 */
export function assertUiBuilt(): void {
  const index = path.join(root, "renderer", "dist", "index.html");
  if (!existsSync(index)) throw new Error("renderer/dist is missing: run `npm run build` first");
  const builtAt = statSync(index).mtimeMs;
  const stale: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (!/\.test\.m?[jt]s$/.test(name) && statSync(full).mtimeMs > builtAt)
        stale.push(path.relative(root, full));
    }
  };
  walk(path.join(root, "renderer", "src"));
  // The renderer bundles shared/ too (contract, limits, audit entry and filter).
  walk(path.join(root, "shared"));
  if (stale.length > 0) {
    throw new Error(
      `renderer/dist is older than ${stale.slice(0, 3).join(", ")}: run \`npm run build\` first`,
    );
  }
}

export interface UiDaemon {
  home: string;
  pid: number;
  /** The link as printed, with `#ticket=...`: it works once, within a minute of the start. */
  printedUrl: string;
  /**
   * A new link that opens the UI (once), asked for on the local socket with the home's token
   * as `codemode ui open` does: for each page a test opens.
   */
  newLink(): Promise<string>;
  /** The ticket of a new link, for a test's own API connection (`connectWsApi`). */
  ticket(): Promise<string>;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** Everything the daemon wrote to stdout so far. */
  stdout(): string;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  alive(): boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM and wait (SIGKILL after `timeoutMs`, then throws). */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `codemode daemon --ui` on `home` and resolves with the URL it printed on stdout
 * once it said "ready" on stderr. Rejects with its stderr if it exits first or is slow.
 */
export async function startUiDaemon(
  home: string,
  timeoutMs = 60_000,
  env: Record<string, string> = {},
): Promise<UiDaemon> {
  const child: ChildProcess = spawn(process.execPath, [CODEMODE_BIN, "daemon", "--ui"], {
    cwd: root,
    env: hostEnv(home, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const pid = child.pid;
  if (pid === undefined) throw new Error("codemode daemon --ui did not start");
  try {
    await until(
      () => {
        if (gone) throw new Error("codemode daemon --ui exited before printing its URL");
        return stdout.includes("\n") && stderr.includes("codemode daemon: ready");
      },
      "codemode daemon --ui to print its URL",
      timeoutMs,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${stderr}`);
  }
  const url = stdout.split("\n")[0]!;
  const match = /^http:\/\/127\.0\.0\.1:(\d+)\/#ticket=[0-9a-f]{64}$/.exec(url);
  if (!match) {
    child.kill("SIGKILL");
    throw new Error(`codemode daemon --ui printed ${JSON.stringify(url)}, not its link`);
  }
  const port = Number(match[1]);
  const newLink = async (): Promise<string> => {
    const answer = await requestUiLink(home, hostEnv(home));
    if (answer.kind !== "link") throw new Error(`no UI link: ${JSON.stringify(answer)}`);
    return answer.url;
  };
  return {
    home,
    pid,
    printedUrl: url,
    newLink,
    ticket: async () => ticketOf(await newLink()),
    origin: `http://127.0.0.1:${port}`,
    port,
    stdout: () => stdout,
    stderr: () => stderr,
    alive: () => !gone,
    exited,
    async stop(stopTimeoutMs = 20_000) {
      if (!gone) child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), stopTimeoutMs);
      });
      const outcome = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        child.kill("SIGKILL");
        await exited;
        throw new Error(`codemode daemon ${pid} did not stop within ${stopTimeoutMs} ms`);
      }
      return outcome;
    },
  };
}

/** Debian's Chromium, headless, without the background traffic of a desktop browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** A plain HTTP GET with a chosen Host header: its status and body. */
export function rawGet(
  port: number,
  hostHeader: string,
  urlPath = "/",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: urlPath, method: "GET", headers: { Host: hostHeader } },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * Polls `read` until `ok` holds for its value (an expect-style wait); fails with the last
 * value seen, so a wrong page says what it showed instead.
 */
export async function waitUntil<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<T> {
  let last: T | undefined;
  let lastError: unknown;
  const holds = async (): Promise<boolean> => {
    try {
      last = await read();
      return ok(last);
    } catch (error) {
      lastError = error;
      return false;
    }
  };
  try {
    await until(holds, what, timeoutMs);
  } catch (error) {
    const seen =
      last === undefined ? `error: ${String(lastError)}` : `last seen: ${JSON.stringify(last)}`;
    throw new Error(`${String(error instanceof Error ? error.message : error)} (${seen})`);
  }
  return last as T;
}

/** Waits until the locator's visible text matches `pattern`; returns the text. */
export function waitForText(
  locator: Locator,
  pattern: RegExp,
  what = `text ${String(pattern)}`,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<string> {
  return waitUntil(
    () => locator.innerText({ timeout: 1000 }),
    (text) => pattern.test(text),
    what,
    timeoutMs,
  );
}

/** The visible texts of every element the locator matches, once `ok` holds for them. */
export function waitForTexts(
  locator: Locator,
  ok: (texts: string[]) => boolean,
  what: string,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<string[]> {
  return waitUntil(() => locator.allInnerTexts(), ok, what, timeoutMs);
}

/**
 * The few browser globals the tests touch inside `page.evaluate` (the tsconfig has no DOM
 * lib). Cast `globalThis` to it inside the function; the cast is gone when it runs.
 */
export interface PageGlobals {
  document: {
    documentElement: { dataset: Record<string, string | undefined> };
    getElementById(id: string): PageElement | null;
  };
  localStorage: { removeItem(key: string): void };
  requestAnimationFrame(callback: () => void): number;
  setTimeout(callback: () => void, ms: number): unknown;
  /** Marks a test leaves on the page's window. */
  e2eMark?: string;
}

export interface PageElement {
  textContent: string | null;
  scrollHeight: number;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number };
}

/** The text of what a control's aria-describedby points at (its hint and its error). */
export function descriptionOf(control: Locator): Promise<string> {
  return control.evaluate((el: unknown) => {
    const { document } = globalThis as unknown as PageGlobals;
    return ((el as PageElement).getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .filter((id) => id !== "")
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" ");
  });
}

/** The current theme of the page (`data-theme` on <html>). */
export function themeOf(page: Page): Promise<string | undefined> {
  return page.evaluate(
    () => (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme,
  );
}

/** Clicks the header's theme button (the user's choice, kept in localStorage). */
export async function toggleTheme(page: Page, to: "light" | "dark"): Promise<void> {
  await page.getByRole("button", { name: `Switch to ${to} theme` }).click();
  await waitUntil(
    () => themeOf(page),
    (t) => t === to,
    `the ${to} theme`,
  );
}

/**
 * Screenshots the page in light and dark (the system's colour scheme, emulated: the header
 * button cannot be reached while a dialog is open) as `<ARTIFACTS_DIR>/<name>-light.png` and
 * `-dark.png`, tall enough to show the whole content (it scrolls inside the window, so a
 * "full page" shot would cut it). Leaves the page light and its window as it was. The page
 * must follow the system theme (no choice stored). `minHeight` makes the window taller for
 * pages whose panels scroll on their own (the audit log). Returns the two paths.
 */
export async function screenshotBothThemes(
  page: Page,
  name: string,
  options: { minHeight?: number } = {},
): Promise<string[]> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const viewport = page.viewportSize() ?? { width: 1280, height: 860 };
  const files: string[] = [];
  // No hover effect where the last click left the mouse.
  await page.mouse.move(viewport.width - 2, viewport.height - 2);
  try {
    for (const theme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await waitUntil(
        () => themeOf(page),
        (t) => t === theme,
        `the ${theme} theme (is a theme choice stored?)`,
      );
      const contentHeight = await page.evaluate(() => {
        const content = (globalThis as unknown as PageGlobals).document.getElementById("content");
        if (!content) return 0;
        return content.getBoundingClientRect().top + content.scrollHeight;
      });
      const height = Math.min(
        2400,
        Math.max(viewport.height, options.minHeight ?? 0, Math.ceil(contentHeight)),
      );
      if (height !== viewport.height) await page.setViewportSize({ ...viewport, height });
      // Let the theme's transitions and the new layout settle before the picture.
      await page.evaluate(() => {
        const w = globalThis as unknown as PageGlobals;
        return new Promise<void>((resolve) =>
          w.requestAnimationFrame(() => w.setTimeout(resolve, 250)),
        );
      });
      const file = path.join(ARTIFACTS_DIR, `${name}-${theme}.png`);
      await page.screenshot({ path: file, animations: "disabled", caret: "hide" });
      files.push(file);
      if (height !== viewport.height) await page.setViewportSize(viewport);
    }
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
  }
  return files;
}

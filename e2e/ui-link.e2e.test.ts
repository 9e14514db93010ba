// The browser UI's links, met the way a user and another user of the same machine meet them.
// `npm start` on the headless path and `codemode ui open` hand the browser a link through
// process arguments, which every local user can read (`ps`) for as long as the browser runs.
// The attack: another user reads the link there and signs in to the API with what it carries
// (with it, `servers.try` runs any command as the user). A stand-in for xdg-open, first on
// PATH, records the link and stays alive holding it, as a browser does; the tests read the
// arguments and environment of every process the app starts, then try what they found.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { API_CHANNELS, type ApiHandlers } from "../shared/api/api-contract.js";
import { HOST_LIMITS } from "../shared/limits.js";
import { EventHub } from "../electron/host/api/event-hub.js";
import { UiServer } from "../electron/host/ingress/ui-server/ui-server.js";
import {
  assertUiBuilt,
  launchChromium,
  UI_TIMEOUT_MS,
  waitForText,
} from "../test-support/browser.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  CODEMODE_BIN,
  hostEnv,
  makeHome,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { processTexts, type ProcessText } from "../test-support/proc-tree.js";
import { repoRoot } from "../test-support/processes.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";

/** Stands in for xdg-open and the browser: notes its pid and link, then holds the link. */
const FAKE_OPENER = `#!/bin/sh
printf '%s %s\\n' "$$" "$*" >> "$0.calls"
exec "${process.execPath}" -e "setInterval(() => {}, 2 ** 30)" fake-browser "$@"
`;

/** Any link to the UI with what it carries after `#name=`. */
const LINK_IN_TEXT = /http:\/\/127\.0\.0\.1:\d{1,5}\/#(\w{1,16})=([0-9a-f]{1,128})/;

interface Opener {
  dir: string;
  /** The environment that makes the app find the stand-in (and a display to open it on). */
  env: Record<string, string>;
  /** Each call so far: its pid and its arguments. */
  calls(): { pid: number; args: string }[];
}

function fakeOpener(): Opener {
  const dir = tempDir("cm-fake-open-");
  const file = path.join(dir, "xdg-open");
  writeFileSync(file, FAKE_OPENER, { mode: 0o755 });
  return {
    dir,
    env: { PATH: `${dir}:${process.env.PATH ?? ""}`, DISPLAY: ":99" },
    calls: () => {
      const log = `${file}.calls`;
      if (!existsSync(log)) return [];
      return readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const space = line.indexOf(" ");
          return { pid: Number(line.slice(0, space)), args: line.slice(space + 1) };
        });
    },
  };
}

/** What another local user does with a link's value: every hello the API knows of. */
async function helloWith(port: number, hello: Record<string, string>): Promise<number | "welcome"> {
  const origin = `http://127.0.0.1:${port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Origin: origin } });
  try {
    return await new Promise<number | "welcome">((resolve, reject) => {
      ws.once("error", reject);
      ws.once("close", (code) => resolve(code));
      ws.once("open", () => ws.send(JSON.stringify({ type: "hello", ...hello })));
      ws.on("message", (data: Buffer) => {
        if ((JSON.parse(data.toString("utf8")) as { type: string }).type === "welcome") {
          resolve("welcome");
        }
      });
    });
  } finally {
    ws.close();
  }
}

/** Where a secret shows in a process's arguments or environment, if anywhere. */
function seenIn(texts: ProcessText[], secret: string): string[] {
  return texts.flatMap((t) => [
    ...(t.cmdline.includes(secret) ? [`${t.pid} arguments: ${t.cmdline}`] : []),
    ...(t.environ.includes(secret) ? [`${t.pid} environment`] : []),
  ]);
}

const sessionOf = (page: Page): Promise<string | null> =>
  page.evaluate(() =>
    (
      globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }
    ).sessionStorage.getItem("codemode.session"),
  );

/** The app's main navigation: the page is signed in and shows Code Mode. */
const signedIn = (page: Page) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Servers" });

const refusedPage = (page: Page) =>
  page.getByRole("alert").filter({ hasText: "Code Mode needs a new link" });

describe("a link to the browser UI, as another user of the machine sees it", () => {
  const home = makeHome("cm-ui-link-");
  const opener = fakeOpener();
  let start: ChildProcess | undefined;
  let startExit: Promise<number | null> | undefined;
  let browser: Browser | undefined;
  let port = 0;
  const stderr: string[] = [];

  beforeAll(async () => {
    assertHostBuilt();
    assertUiBuilt();
    assertToyServerBuilt();
    // A wrapped server, so the app's tree holds one of its children too.
    writeServers(home, { toy: toyServer() });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    for (const call of opener.calls()) {
      try {
        process.kill(call.pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    if (start?.exitCode === null) start.kill("SIGTERM");
    const code = await startExit;
    await cleanUpHosts();
    removeTempDirs();
    expect(code, stderr.join("")).toBe(0);
  });

  it("npm start opens the browser with a link that is no use once the browser used it, and no lasting secret is in any process it starts", async () => {
    // What `npm start` runs after the build, on the headless path (no Electron binary here).
    start = spawn(process.execPath, [path.join(repoRoot, "scripts", "start.mjs")], {
      cwd: repoRoot,
      env: hostEnv(home, opener.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    start.stderr?.on("data", (d: Buffer) => stderr.push(d.toString("utf8")));
    start.stdout?.resume();
    const child = start;
    startExit = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    // The stand-in notes its call before it becomes the browser (`exec`), so the wait is for
    // the browser process itself, not for the note.
    await until(
      () => {
        const running = processTexts(child.pid!);
        return (
          opener.calls().length === 1 &&
          running.some((t) => t.cmdline.includes("fake-browser")) &&
          running.some((t) => t.cmdline.includes(TOY_SERVER_JS))
        );
      },
      "npm start to open the browser and start the wrapped server",
      60_000,
    );
    const texts = processTexts(child.pid!);
    const browserProcess = texts.find((t) => t.cmdline.includes("fake-browser"));
    expect(browserProcess, JSON.stringify(texts.map((t) => t.cmdline))).toBeDefined();
    // What every user of the machine reads in `ps` while the browser runs.
    const link = LINK_IN_TEXT.exec(browserProcess!.cmdline);
    expect(link, browserProcess!.cmdline).not.toBeNull();
    const [url, name, value] = [link![0], link![1]!, link![2]!];
    port = Number(new URL(url).port);
    // The install's token is in no process's arguments or environment.
    const installToken = readFileSync(path.join(home, "token"), "utf8").trim();
    expect(seenIn(texts, installToken)).toEqual([]);

    // The browser signs in with the link.
    const page = await browser!.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(url);
    await signedIn(page).waitFor();
    expect(page.url()).not.toContain(value);

    // Another user, with what the browser's arguments show: no form of hello signs in.
    const hellos: Record<string, string>[] = [
      { ticket: value },
      { session: value },
      { token: value },
    ];
    for (const hello of hellos) {
      expect(await helloWith(port, hello), JSON.stringify(hello)).not.toBe("welcome");
    }
    // ... nor the link itself, in a browser of their own.
    const other = await browser!.newContext();
    try {
      const stranger = await other.newPage();
      await stranger.goto(url);
      await waitForText(
        refusedPage(stranger),
        /used already or has expired[\s\S]*codemode ui open/,
        "the page for a used link",
      );
    } finally {
      await other.close();
    }
    expect(name).toBe("ticket");

    // The page keeps a session of its own, and a reload stays signed in with it.
    const session = await sessionOf(page);
    expect(session).toMatch(/^[0-9a-f]{64}$/);
    await page.reload();
    await signedIn(page).waitFor();
    expect(await refusedPage(page).count()).toBe(0);
    await until(
      () =>
        auditEntries(home, "auth_refused").some(
          (e) => e.reason === "browser UI link not issued, used already, or expired",
        ),
      "the refused link in the audit log",
    );
    // The page's session is in no process either: it lives in the browser's tab only.
    expect(seenIn(processTexts(child.pid!), session!)).toEqual([]);
    await page.close();
  });

  it("codemode ui open asks the running app for a new link with the install's token, and hands the browser only that", async () => {
    expect(port).toBeGreaterThan(0);
    const before = opener.calls().length;
    const result = spawnSync(process.execPath, [CODEMODE_BIN, "ui", "open"], {
      cwd: repoRoot,
      env: hostEnv(home, opener.env),
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/opened Code Mode in your browser/);
    const url = result.stdout.trim();
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#ticket=[0-9a-f]{64}$`));
    await until(() => opener.calls().length === before + 1, "ui open to call the opener");
    const call = opener.calls()[before]!;
    expect(call.args).toBe(url);
    const installToken = readFileSync(path.join(home, "token"), "utf8").trim();
    expect(seenIn(processTexts(call.pid), installToken)).toEqual([]);

    const page = await browser!.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(url);
    await signedIn(page).waitFor();
    // Opened a second time (another tab, another user), the link shows how to get a new one.
    const again = await browser!.newPage();
    await again.goto(url);
    await waitForText(refusedPage(again), /codemode ui open/, "the page for a used link");
    await page.close();
    await again.close();

    // Without a running app there is nothing to ask, and the command says how to start one.
    const none = spawnSync(process.execPath, [CODEMODE_BIN, "ui", "open", "--print"], {
      cwd: repoRoot,
      env: hostEnv(makeHome("cm-ui-link-none-")),
      encoding: "utf8",
    });
    expect(none.status).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/Code Mode is not running .*codemode daemon --ui/);
  });
});

describe("a link to the browser UI, once its time is up", () => {
  let server: UiServer | undefined;
  let browser: Browser | undefined;
  let now = 1_000_000;

  beforeAll(async () => {
    assertUiBuilt();
    // The UI server on its own clock; the page's API is answered with nothing (only signing
    // in is looked at here).
    const api = Object.fromEntries(
      API_CHANNELS.map((channel) => [channel, () => null]),
    ) as unknown as ApiHandlers;
    server = await UiServer.start({
      host: {
        api,
        events: new EventHub(),
        record: () => undefined,
        audit: { export: () => Promise.resolve(0) },
      },
      staticDir: path.join(repoRoot, "renderer", "dist"),
      port: 0,
      now: () => now,
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await server?.close();
  });

  it(`works until ${HOST_LIMITS.uiTicketTtlMs / 1000} s after it was made, and then shows how to get a new one`, async () => {
    const late = server!.newLink();
    const inTime = server!.newLink();
    now += HOST_LIMITS.uiTicketTtlMs - 1;
    const page = await browser!.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(inTime);
    await until(async () => (await sessionOf(page)) !== null, "the page to sign in");
    now += 1;
    const expired = await browser!.newPage();
    await expired.goto(late);
    await waitForText(
      refusedPage(expired),
      new RegExp(
        `used already or has expired: a link opens Code Mode once, within ${HOST_LIMITS.uiTicketTtlMs / 1000} s[\\s\\S]*codemode ui open`,
      ),
      "the page for an expired link",
    );
    expect(await sessionOf(expired)).toBeNull();
  });
});

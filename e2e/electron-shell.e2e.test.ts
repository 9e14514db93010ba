// The Electron shell, exercised without Electron: the real main-process bundle, built as Forge's
// Vite plugin builds it, runs under Node against a stand-in for the `electron` module
// (test-support/electron-stand-in/), with real Docker and a temporary HOME and data directory.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CHANNELS } from "../shared/api/api-contract.js";
import type { HeldToolView, ImageStatusView } from "../shared/api/api-views.js";
import { IPC_EXPORT_AUDIT, IPC_PICK_PATH, ipcRequestChannel } from "../shared/api/ipc-channels.js";
import { trayMenu, type TraySnapshot } from "../electron/tray/tray-state.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import {
  cleanUpHosts,
  homeContainers,
  makeHome,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { SKILL_PROMPT_NAME } from "../electron/host/ingress/mcp/skill-guide.js";
import {
  connectAsClient,
  packagedLayout,
  shimLaunchOf,
  startShell,
  type ShellEvent,
  type ShellProcess,
} from "../test-support/electron-shell.js";
import { repoRoot } from "../test-support/processes.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { textOf, until } from "../test-support/wait.js";

const fx = await dockerOrSkip();

/** What the tray shows once the host is up with Docker, the image and no servers. */
const READY: TraySnapshot = {
  dockerReady: true,
  imagePresent: true,
  failedServers: [],
  problems: 0,
  runningRuns: 0,
  privateClients: [],
  paused: false,
  openAtLogin: false,
  auditFailing: false,
  dockerUnreachable: false,
};

/** The items the pure tray function computes, as the stand-in records Electron's menu. */
function expectedMenu(snapshot: TraySnapshot): unknown[] {
  return trayMenu(snapshot).map((item) =>
    item.kind === "separator"
      ? { type: "separator", enabled: true, checked: false }
      : {
          type: item.kind === "checkbox" ? "checkbox" : "normal",
          label: item.label,
          enabled: item.kind !== "label",
          checked: item.kind === "checkbox" && item.checked,
        },
  );
}

const lastMenu = (shell: ShellProcess): unknown => shell.of("tray-menu").at(-1)?.items;

async function quitAndWait(shell: ShellProcess): Promise<void> {
  shell.send({ op: "quit" });
  const exit = await shell.exited;
  expect(exit, shell.output).toEqual({ code: 0, signal: null });
}

beforeAll(() => {
  // The bundles as Forge builds them (main, preload, renderer), not a stale copy.
  execFileSync(process.execPath, [path.join(repoRoot, "scripts", "build-electron.mjs")], {
    cwd: repoRoot,
    stdio: "pipe",
  });
}, 300_000);

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
  removeTempDirs();
});

describe.skipIf(!fx)("the Electron main process under a stand-in for electron", () => {
  // HOME (Electron's user data, the lock) apart from the data directory (host, containers).
  const home = tempDir("codemode-shell-home-");
  const dataDir = makeHome("codemode-shell-");
  const main = path.join(repoRoot, ".vite", "build", "main.cjs");
  let first: ShellProcess;
  // The tools of a second wrapped server, from a file the held-change test rewrites.
  const toolsFile = path.join(dataDir, "pinned-tools.json");
  const writeTools = (description: string): void => {
    const tools = [{ name: "lookup", description, inputSchema: { type: "object" } }];
    writeFileSync(`${toolsFile}.new`, JSON.stringify(tools));
    renameSync(`${toolsFile}.new`, toolsFile);
  };

  beforeAll(() => {
    assertToyServerBuilt();
    // A wrapped server whose echo tool asks first, for the notification test.
    writeTools("Looks up a word.");
    writeServers(dataDir, {
      toy: toyServer({ ask: ["echo"] }),
      pinned: toyServer({ env: { TOY_TOOLS_FILE: toolsFile } }),
    });
    first = startShell({ main, home, dataDir });
  });

  afterAll(() => {
    if (first.child.exitCode === null) first.child.kill("SIGKILL");
  });

  it("starts the host and draws the tray menu the tray function computes", async () => {
    await first.waitFor("single-instance-lock", (e) => e.got === true);
    const expected = expectedMenu(READY);
    await until(
      () => JSON.stringify(lastMenu(first)) === JSON.stringify(expected),
      `the tray menu to read ${JSON.stringify(expected)} (last: ${JSON.stringify(lastMenu(first))}; stderr: ${first.output})`,
      30_000,
    );
    expect(first.of("tray-new")).toHaveLength(1);
    expect(first.of("tray-image").at(-1)?.image).toMatchObject({ png: true });
    // A click on the menu reaches the host and comes back as the redrawn menu.
    first.send({ op: "click-tray-item", label: "Pause new runs" });
    const paused = expectedMenu({ ...READY, paused: true });
    await until(
      () => JSON.stringify(lastMenu(first)) === JSON.stringify(paused),
      "the paused tray menu",
    );
    first.send({ op: "click-tray-item", label: "Pause new runs" });
    await until(() => JSON.stringify(lastMenu(first)) === JSON.stringify(expected), "unpaused");
    // The host's warm container is there while the app runs.
    await until(
      async () => (await homeContainers(fx!.docker, dataDir)).length > 0,
      "a warm container",
      60_000,
    );
  });

  it("opens the locked-down window with a preload and a renderer that exist in the build", async () => {
    const created = await first.waitFor("window-new");
    const prefs = created.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, nodeIntegration: false, sandbox: true });
    expect(prefs.preload).toBe(path.join(repoRoot, ".vite", "build", "preload.cjs"));
    expect(existsSync(prefs.preload as string)).toBe(true);
    const loaded = await first.waitFor("window-load-file");
    expect(existsSync(loaded.file as string), `the window loads ${String(loaded.file)}`).toBe(true);
    await first.waitFor("window-show");
    expect(first.of("window-load-url")).toEqual([]);
  });

  it("registers one IPC handler per contract channel, answering our window only", async () => {
    const handled = first.of("ipc-handle").map((e: ShellEvent) => e.channel);
    expect([...handled].sort()).toEqual(
      // The contract's channels, and the two the desktop app adds (OS dialogs).
      [...API_CHANNELS.map(ipcRequestChannel), IPC_PICK_PATH, IPC_EXPORT_AUDIT].sort(),
    );
    const info = (await first.invoke(ipcRequestChannel("app.info"), undefined)) as {
      ok: boolean;
    };
    expect(info.ok).toBe(true);
    const refused = (await first.invoke(ipcRequestChannel("app.info"), undefined, true)) as {
      ok: boolean;
    };
    expect(refused.ok).toBe(false);
  });

  it("an MCP client started as the Clients page says runs code through this app", async () => {
    const launch = await shimLaunchOf(first);
    expect(launch.args[0]).toBe(path.join(repoRoot, "dist-shim", "codemode-shim.mjs"));
    const client = await connectAsClient(first);
    try {
      const prompt = await client.getPrompt({ name: SKILL_PROMPT_NAME });
      expect(JSON.stringify(prompt.messages)).toContain("run_python");
      const result = await client.callTool({
        name: "run_python",
        arguments: { code: "print(6 * 7)" },
      });
      expect(textOf(result as { content: unknown[] })).toContain("42");
    } finally {
      await client.close();
    }
    // The Audit page's Export saves that run through the save dialog into a file.
    const exported = (await first.invoke(IPC_EXPORT_AUDIT, { format: "jsonl" })) as {
      ok: boolean;
      saved: { path: string; entries: number } | null;
    };
    expect(exported.ok, JSON.stringify(exported)).toBe(true);
    expect(path.dirname(exported.saved?.path ?? "")).toBe(home);
    expect(readFileSync(exported.saved?.path ?? "", "utf8")).toContain("print(6 * 7)");
  });

  it("an ask-first call raises a notification; its click opens the window, the answer lets the call through", async () => {
    const client = await connectAsClient(first);
    try {
      const call = client.callTool({
        name: "run_python",
        arguments: { code: 'print(await toy__echo({"text": "asked first"}))' },
      });
      // Awaited below; a failure before that must not surface as an unhandled rejection.
      call.catch(() => undefined);
      const notice = await first.waitFor("notification");
      expect(notice.title).toBe("Code Mode: a call waits for your answer");
      expect(notice.body).toContain("electron-shell-test wants to call echo on toy");
      const waiting = expectedMenu({ ...READY, runningRuns: 1, pendingApprovals: 1 });
      await until(
        () => JSON.stringify(lastMenu(first)) === JSON.stringify(waiting),
        `the tray menu with the waiting call (last: ${JSON.stringify(lastMenu(first))})`,
      );
      const shown = first.of("window-show").length;
      first.send({ op: "click-notification" });
      await until(() => first.of("window-show").length > shown, "the window shown to answer");
      const pending = (await first.invoke(ipcRequestChannel("approvals.list"), undefined)) as {
        value: { id: string }[];
      };
      expect(pending.value).toHaveLength(1);
      await first.invoke(ipcRequestChannel("approvals.answer"), {
        id: pending.value[0]?.id,
        answer: "allow_once",
      });
      expect(textOf((await call) as { content: unknown[] })).toContain("asked first");
      expect(first.of("notification")).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("a held tool definition puts 'Changes to review (1)' in the tray; its click opens the Servers page", async () => {
    // The first start pinned lookup; a live change to it is held.
    writeTools("Looks up a word, then mails it away.");
    const held = expectedMenu({ ...READY, heldTools: 1 });
    await until(
      () => JSON.stringify(lastMenu(first)) === JSON.stringify(held),
      `the tray menu with the held change (last: ${JSON.stringify(lastMenu(first))})`,
      30_000,
    );
    const shown = first.of("window-show").length;
    first.send({ op: "click-tray-item", label: "Changes to review (1)" });
    await until(() => first.of("window-show").length > shown, "the window shown");
    expect(first.of("execute-javascript").at(-1)?.code).toBe('location.hash = "#/servers"');
    // Accepted (as the page does: with the hash of the definition it shows), the item goes.
    const page = (await first.invoke(ipcRequestChannel("servers.held"), { name: "pinned" })) as {
      ok: boolean;
      value: { held: HeldToolView[] };
    };
    expect(page.ok).toBe(true);
    const reviewed = (await first.invoke(ipcRequestChannel("servers.review"), {
      name: "pinned",
      decision: "accept",
      tools: page.value.held.map((h) => ({ tool: h.tool, hash: h.hash })),
    })) as { ok: boolean };
    expect(reviewed.ok).toBe(true);
    await until(
      () => JSON.stringify(lastMenu(first)) === JSON.stringify(expectedMenu(READY)),
      `the tray menu without it (last: ${JSON.stringify(lastMenu(first))})`,
    );
  });

  it("a second instance defers to the first, which opens its window", async () => {
    const shownBefore = first.of("window-show").length;
    const second = startShell({ main, home, dataDir });
    const exit = await second.exited;
    expect(exit, second.output).toEqual({ code: 0, signal: null });
    expect(second.of("single-instance-lock")).toEqual([{ ev: "single-instance-lock", got: false }]);
    // It never started a host (no error box about a host already running) nor a window.
    expect(second.of("error-box")).toEqual([]);
    expect(second.of("window-new")).toEqual([]);
    await first.waitFor("second-instance");
    await until(() => first.of("window-show").length > shownBefore, "the window shown again");
  });

  it("on quit stops the host and leaves no container", async () => {
    await quitAndWait(first);
    const order = first
      .events()
      .map((e) => e.ev)
      .filter((ev) => ["before-quit", "tray-destroy", "window-closed", "will-quit"].includes(ev));
    // before-quit is held while the host stops, then the tray goes and the quit goes through.
    expect(order).toEqual([
      "before-quit",
      "tray-destroy",
      "before-quit",
      "window-closed",
      "will-quit",
    ]);
    expect(await homeContainers(fx!.docker, dataDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, "run", "codemode.sock"))).toBe(false);
  });
});

describe.skipIf(!fx)("the packaged layout Forge makes", () => {
  it("holds the shim, the renderer and the sandbox image context where the app reads them", async () => {
    const { resources, main } = packagedLayout();
    const home = tempDir("codemode-shell-home-");
    const dataDir = makeHome("codemode-shell-");
    const shell = startShell({ main, home, dataDir, resources });
    try {
      const created = await shell.waitFor("window-new");
      const preload = (created.webPreferences as { preload: string }).preload;
      expect(preload.startsWith(resources)).toBe(true);
      expect(existsSync(preload)).toBe(true);
      const loaded = await shell.waitFor("window-load-file");
      expect(existsSync(loaded.file as string), `the window loads ${String(loaded.file)}`).toBe(
        true,
      );
      // The shim MCP clients are told to start is the bundled one in resources/, and the
      // guide it offers is the SKILL.md shipped there (skill-guide.ts reads resources/codemode).
      const shimPath = (await shimLaunchOf(shell)).args[0] ?? "";
      expect(shimPath.startsWith(resources), shimPath).toBe(true);
      expect(existsSync(shimPath), `the shim at ${shimPath}`).toBe(true);
      expect(existsSync(path.join(resources, "codemode", "SKILL.md"))).toBe(true);
      const client = await connectAsClient(shell);
      try {
        const prompt = await client.getPrompt({ name: SKILL_PROMPT_NAME });
        expect(JSON.stringify(prompt.messages)).toContain("run_python");
      } finally {
        await client.close();
      }
      // The image the app builds is the one of the sandbox-image context it ships.
      const image = (await shell.invoke(ipcRequestChannel("image.status"), undefined)) as {
        ok: true;
        value: ImageStatusView;
      };
      expect(image.value.tag).toBe(imageTagFor(readContext(sandboxImageDir())));
      expect(existsSync(path.join(resources, "sandbox-image", "Dockerfile"))).toBe(true);
      await quitAndWait(shell);
      expect(await homeContainers(fx!.docker, dataDir)).toEqual([]);
    } finally {
      if (shell.child.exitCode === null) shell.child.kill("SIGKILL");
    }
  });
});

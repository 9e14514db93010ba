// The real bundled Electron main process, run under plain Node against the `electron`
// stand-in (test-support/electron-stand-in/): start it, read what it asked of Electron, drive
// it (quit, tray clicks, IPC requests) and lay out the packaged app as Forge would.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ClientSnippets } from "../shared/api/api-views.js";
import { ipcRequestChannel } from "../shared/api/ipc-channels.js";
import forgeConfig from "../forge.config.js";
import { childEnv, repoRoot } from "./processes.js";
import { tempDir } from "./temp-dir.js";
import { until } from "./wait.js";

const REGISTER = path.join(repoRoot, "test-support", "electron-stand-in", "register.cjs");

/** One thing the main process asked of Electron, as the stand-in logged it. */
export interface ShellEvent {
  ev: string;
  [key: string]: unknown;
}

export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ShellProcess {
  readonly exited: Promise<ShellExit>;
  private stderr = "";
  private nextId = 1;

  constructor(
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    child.stderr?.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    this.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
  }

  /** What the process wrote to stderr so far (its log lines), for failure messages. */
  get output(): string {
    return this.stderr;
  }

  events(): ShellEvent[] {
    if (!existsSync(this.logFile)) return [];
    // The stand-in may be half-way through writing its last line: only whole lines count.
    const lines = readFileSync(this.logFile, "utf8").split("\n");
    lines.pop();
    return lines.filter((line) => line !== "").map((line) => JSON.parse(line) as ShellEvent);
  }

  of(ev: string): ShellEvent[] {
    return this.events().filter((e) => e.ev === ev);
  }

  /** The latest event named `ev` that `match` accepts, once there is one. */
  async waitFor(
    ev: string,
    match: (e: ShellEvent) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<ShellEvent> {
    let found: ShellEvent | undefined;
    await until(
      () => {
        found = this.of(ev).filter(match).at(-1);
        return found !== undefined;
      },
      `the main process to log ${ev} (stderr: ${this.stderr.slice(-2000)})`,
      timeoutMs,
    );
    return found as ShellEvent;
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin?.write(JSON.stringify(command) + "\n");
  }

  /** An IPC request as the window's renderer (or, `untrusted`, another frame) would make it. */
  async invoke(channel: string, params: unknown, untrusted = false): Promise<unknown> {
    const id = this.nextId++;
    this.send({ op: "invoke", id, channel, params, untrusted });
    return (await this.waitFor("invoke-result", (e) => e.id === id)).result;
  }
}

/** The shim launch the app's Clients page gives MCP clients (its Claude Desktop entry). */
export async function shimLaunchOf(
  shell: ShellProcess,
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const answer = (await shell.invoke(ipcRequestChannel("clients.snippets"), undefined)) as {
    ok: boolean;
    value: ClientSnippets;
  };
  if (!answer.ok) throw new Error(`clients.snippets failed: ${JSON.stringify(answer)}`);
  const entry = JSON.parse(answer.value.claudeDesktop) as {
    mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
  };
  const launch = Object.values(entry.mcpServers)[0];
  if (!launch) throw new Error("the Claude Desktop entry names no server");
  return launch;
}

/**
 * An MCP client started exactly as that entry says (under the stand-in the app's executable
 * is Node, so ELECTRON_RUN_AS_NODE changes nothing): it reaches the app through the shim.
 */
export async function connectAsClient(shell: ShellProcess): Promise<Client> {
  const launch = await shimLaunchOf(shell);
  const client = new Client({ name: "electron-shell-test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: { PATH: process.env.PATH ?? "", ...launch.env },
    }),
  );
  return client;
}

export interface ShellOptions {
  /** The bundle to run: `.vite/build/main.cjs` of the checkout or of a packaged layout. */
  main: string;
  /** HOME of the process: Electron's user data (and its lock) live under it. */
  home: string;
  dataDir: string;
  /** Set for a packaged layout: the resources folder the app reads its extras from. */
  resources?: string;
}

/** Starts the main process; each start logs to a file of its own in `home`. */
export function startShell(options: ShellOptions): ShellProcess {
  const logFile = path.join(
    options.home,
    `stand-in-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`,
  );
  const env = childEnv(options.dataDir, {
    HOME: options.home,
    ELECTRON_STAND_IN_LOG: logFile,
    ELECTRON_STAND_IN_COMMANDS: "stdin",
    ...(options.resources
      ? { ELECTRON_STAND_IN_PACKAGED: "1", ELECTRON_STAND_IN_RESOURCES: options.resources }
      : {}),
  });
  const child = spawn(process.execPath, ["--require", REGISTER, options.main], {
    env,
    stdio: ["pipe", "ignore", "pipe"],
  });
  return new ShellProcess(child, logFile);
}

/**
 * The app as `npm run package` lays it out on Linux, from forge.config.ts: the app folder holds
 * package.json and the `.vite` build (Forge's Vite plugin keeps nothing else; it is an asar
 * archive there, a plain folder here, which Electron reads alike), and each extra resource is
 * copied into resources/ under its base name (@electron/packager's rule).
 */
export function packagedLayout(): { resources: string; main: string } {
  const resources = path.join(tempDir("codemode-packaged-"), "resources");
  const app = path.join(resources, "app");
  mkdirSync(app, { recursive: true });
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
    main: string;
  };
  writeFileSync(path.join(app, "package.json"), JSON.stringify(pkg));
  cpSync(path.join(repoRoot, ".vite"), path.join(app, ".vite"), { recursive: true });
  const extra = forgeConfig.packagerConfig?.extraResource ?? [];
  for (const resource of typeof extra === "string" ? [extra] : extra) {
    cpSync(path.join(repoRoot, resource), path.join(resources, path.basename(resource)), {
      recursive: true,
    });
  }
  return { resources, main: path.join(app, pkg.main) };
}

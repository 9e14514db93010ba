// Drives the shared host the way users do: `codemode daemon` as a real process on a
// temporary CODEMODE_HOME, MCP clients as the SDK's Client over a StdioClientTransport that
// spawns `codemode shim`, and the CLI (`codemode audit ...`) as more processes. For tests
// that need the typed API, the same host can run in-process instead (shims stay processes).
// The host e2e tests and the shim round-trip bench share it.
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Dockerode from "dockerode";
import type { ApiChannel, ApiParams, ApiResult } from "../shared/api/api-contract.js";
import type { AuditEntry, AuditEntryOf, AuditKind } from "../shared/audit-entry.js";
import { dispatchApi } from "../electron/host/api/api-dispatcher.js";
import { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { installContainers } from "./docker.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { startMcpSession, type McpSession } from "./mcp-session.js";
import { assertBuilt, childEnv, CODEMODE_BIN, repoRoot } from "./processes.js";
import { tempDir } from "./temp-dir.js";
import { until } from "./wait.js";

export { CODEMODE_BIN };

const root = repoRoot;

/** What the shim would start when no host answers: nothing, in tests (see `hostEnv`). */
const NO_APP = path.join(os.tmpdir(), "codemode-tests-never-start-an-app");

// Everything a test started, so `cleanUpHosts()` can end what a failed test left behind.
const homes = new Set<string>();
const daemons = new Set<DaemonProcess>();
const shims = new Set<McpSession>();
const hosts = new Set<CodeModeHost>();

export { assertBuilt as assertHostBuilt };

/** A fresh, empty CODEMODE_HOME (0700, short enough for the socket path). */
export function makeHome(prefix = "codemode-host-"): string {
  const home = tempDir(prefix);
  homes.add(home);
  return home;
}

/** Writes `<home>/servers.json` as an `mcpServers` file (or `raw` verbatim). */
export function writeServers(home: string, servers: Record<string, unknown>, raw?: string): void {
  writeFileSync(
    path.join(home, "servers.json"),
    raw ?? JSON.stringify({ mcpServers: servers }, null, 2),
  );
}

/** A servers.json entry that starts the built toy server. */
export function toyServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [TOY_SERVER_JS], ...extra };
}

/**
 * The environment of every process these helpers start: CODEMODE_HOME and only what Docker
 * needs of the runner's. CODEMODE_APP names nothing, so a shim never starts a daemon of its
 * own behind a test's back.
 */
export function hostEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return childEnv(home, { CODEMODE_APP: NO_APP, ...extra });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

/**
 * How long a process's output may still take to arrive once it has exited: its stdio pipes
 * close when it ends (no child of the daemon shares them), so this is only a bound.
 */
const OUTPUT_AFTER_EXIT_MS = 5_000;

/**
 * A wait for the rest of the output of `child`, once it has exited. Node emits 'exit' as soon
 * as the process ends, possibly before the last of its output was read from the pipe: a line
 * written just before exiting ("codemode daemon: stopped") could be missing from what a test
 * reads right after the exit. Resolves on 'close' (both pipes ended), or after
 * OUTPUT_AFTER_EXIT_MS. Made at the spawn, so no 'close' is missed.
 */
function outputEnded(child: ChildProcess): () => Promise<void> {
  let closed = false;
  child.once("close", () => (closed = true));
  return () =>
    until(() => closed, "the daemon's output to end", OUTPUT_AFTER_EXIT_MS).catch(() => undefined);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface DaemonProcess {
  home: string;
  pid: number;
  /** The daemon's "ready: ..." line. */
  readyLine: string;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  /** Everything the daemon wrote to stdout so far (with --ui: the UI's URL). */
  stdout(): string;
  exited: Promise<Exit>;
  /** SIGTERM, then waits for the exit (SIGKILL and an error after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Exit>;
  /** SIGKILL: no clean-up at all, as in a crash. */
  kill(): Promise<Exit>;
}

/**
 * Starts `codemode daemon` on `home` and resolves once it printed its "ready" line on
 * stderr. Rejects with its stderr if it exits first or takes longer than `POOL_READY_TIMEOUT_MS`.
 */
export async function startDaemon(
  home: string,
  options: {
    args?: string[];
    env?: Record<string, string>;
    readyTimeoutMs?: number;
    /** Another built checkout whose `codemode` to run (a bench's "before" side); this one unless said. */
    checkout?: string;
  } = {},
): Promise<DaemonProcess> {
  const bin = options.checkout ? path.join(options.checkout, "bin", "codemode.js") : CODEMODE_BIN;
  const child = spawn(process.execPath, [bin, "daemon", ...(options.args ?? [])], {
    cwd: options.checkout ?? root,
    env: hostEnv(home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = exitOf(child);
  const ended = outputEnded(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error("codemode daemon did not start");
  const ready = new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const line = stderr.split("\n").find((l) => l.startsWith("codemode daemon: ready"));
      if (line !== undefined) {
        child.stderr.off("data", check);
        resolve(line);
      }
    };
    child.stderr.on("data", check);
    void exited.then((exit) =>
      reject(
        new Error(`codemode daemon exited (${JSON.stringify(exit)}) before ready:\n${stderr}`),
      ),
    );
  });
  const daemon: DaemonProcess = {
    home,
    pid,
    readyLine: "",
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    async stop(timeoutMs = 20_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      try {
        const exit = await withTimeout(exited, timeoutMs, `codemode daemon ${pid} to stop`);
        // What it wrote as it stopped is read before the caller looks at stderr().
        await ended();
        return exit;
      } catch (error) {
        child.kill("SIGKILL");
        await exited;
        throw error;
      } finally {
        daemons.delete(daemon);
      }
    },
    async kill() {
      child.kill("SIGKILL");
      daemons.delete(daemon);
      const exit = await exited;
      await ended();
      return exit;
    },
  };
  daemons.add(daemon);
  try {
    daemon.readyLine = await withTimeout(
      ready,
      options.readyTimeoutMs ?? 60_000,
      `codemode daemon ready:\n${stderr}`,
    );
  } catch (error) {
    await daemon.kill();
    throw error;
  }
  return daemon;
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs `codemode <args>` on `home` to its end (stdin closed). */
export function runCli(
  home: string,
  args: string[],
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CODEMODE_BIN, ...args], {
    cwd: root,
    env: hostEnv(home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`codemode ${args.join(" ")} did not exit within ${timeoutMs} ms:\n${stderr}`),
      );
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Connects an MCP client the way Claude Desktop does: the SDK's Client spawns
 * `codemode shim` with CODEMODE_HOME and talks MCP over its stdio.
 */
export async function connectShim(
  home: string,
  clientInfo: { name: string; version: string } = { name: "codemode-e2e", version: "1.0.0" },
  options: {
    env?: Record<string, string>;
    capabilities?: ClientCapabilities;
    checkout?: string;
  } = {},
): Promise<McpSession> {
  const session = await startMcpSession({
    args: ["shim"],
    checkout: options.checkout,
    home,
    env: hostEnv(home, options.env),
    clientInfo,
    capabilities: options.capabilities,
    what: "the shim",
  });
  const shim: McpSession = {
    ...session,
    async close() {
      shims.delete(shim);
      await session.close();
    },
  };
  shims.add(shim);
  return shim;
}

/** Starts the host in this process (the API is then `api(host, ...)`); shims still connect. */
/**
 * A real host in this process whose engine check finds no Docker: for tests of the config, the
 * catalog, pins, transports and the audit, where no run starts. The caller stops it.
 */
export function startHostWithoutDocker(home: string): Promise<CodeModeHost> {
  return CodeModeHost.start({
    dataDir: home,
    version: "test",
    shimLaunch: { command: "node", args: [], env: {} },
    findDocker: () => Promise.resolve({ state: "not-installed", tried: [], message: "not needed" }),
  });
}

export async function startHostInProcess(
  home: string,
  log: string[] = [],
): Promise<{ host: CodeModeHost; log: string[] }> {
  const host = await CodeModeHost.start({
    dataDir: home,
    version: "0.0.0-test",
    shimLaunch: {
      command: process.execPath,
      args: [CODEMODE_BIN, "shim"],
      env: { CODEMODE_HOME: home },
    },
    env: hostEnv(home),
    log: (line) => log.push(line),
  });
  hosts.add(host);
  return { host, log };
}

export async function stopHostInProcess(host: CodeModeHost): Promise<void> {
  hosts.delete(host);
  await host.stop();
}

/**
 * Saving a server does not wait for it to start (its status shows the start): this waits until
 * the host's server `name` is ready, or names its last error.
 */
export async function untilServerReady(
  host: CodeModeHost,
  name: string,
  timeoutMs = 15_000,
): Promise<void> {
  await until(
    () => {
      const server = host.servers.get(name);
      if (server?.status === "failed") throw new Error(`server ${name} failed to start`);
      return server?.status === "ready";
    },
    `server ${name} to be ready`,
    timeoutMs,
  );
}

/**
 * One typed API request through `dispatchApi` (what every transport uses): its value, or a
 * thrown error carrying the API's error code and message.
 */
export async function api<C extends ApiChannel>(
  host: CodeModeHost,
  channel: C,
  params: ApiParams<C>,
): Promise<ApiResult<C>> {
  const response = await dispatchApi(host.api, channel, params);
  if (!response.ok) {
    throw new Error(`${channel}: ${response.error.code}: ${response.error.message}`);
  }
  return response.value;
}

/** Every complete entry of `<home>/audit`, oldest first, read straight from the files. */
export function readAudit(home: string): AuditEntry[] {
  const dir = path.join(home, "audit");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const entries: AuditEntry[] = [];
  for (const name of names.filter((n) => n.endsWith(".jsonl")).sort()) {
    const lines = readFileSync(path.join(dir, name), "utf8").split("\n");
    // The last element is "" after a final newline, or an unfinished line: skip it.
    for (const line of lines.slice(0, -1)) entries.push(JSON.parse(line) as AuditEntry);
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

/** The complete entries of one kind (and one client, if given) in `<home>/audit`. */
export function auditEntries<K extends AuditKind>(
  home: string,
  kind: K,
  client?: string,
): AuditEntryOf<K>[] {
  return readAudit(home).filter(
    (e): e is AuditEntryOf<K> =>
      e.kind === kind && (client === undefined || ("client" in e && e.client === client)),
  );
}

/** The audit files of `home` (not the `.torn` ones), oldest first, as full paths. */
export function auditFiles(home: string): string[] {
  const dir = path.join(home, "audit");
  return readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .map((n) => path.join(dir, n));
}

/** Sandbox containers of one data directory (any state), whoever started them. */
export async function homeContainers(
  docker: Dockerode,
  home: string,
): Promise<{ id: string; state: string }[]> {
  const list = await installContainers(docker, home);
  return list.map((c) => ({ id: c.Id, state: c.State }));
}

/** Pids of the direct children of `pid` (the wrapped servers of a daemon). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map(Number);
  } catch {
    // pgrep exits 1 when there are none.
    return [];
  }
}

/**
 * Ends everything these helpers started and is still running (clients, daemons, in-process
 * hosts), removes their containers and their temporary homes. For afterAll: a test that
 * failed half-way must not leave processes, containers or files behind.
 */
export async function cleanUpHosts(docker?: Dockerode): Promise<void> {
  await Promise.allSettled([...shims].map((s) => s.close()));
  await Promise.allSettled([...daemons].map((d) => d.stop()));
  await Promise.allSettled([...hosts].map((h) => stopHostInProcess(h)));
  for (const home of homes) {
    if (docker) {
      for (const { id } of await homeContainers(docker, home).catch(() => [])) {
        await docker
          .getContainer(id)
          .remove({ force: true })
          .catch(() => undefined);
      }
    }
    rmSync(home, { recursive: true, force: true });
  }
  homes.clear();
}

export { pidAlive } from "../electron/host/util/process-place.js";

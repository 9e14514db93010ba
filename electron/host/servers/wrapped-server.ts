// One wrapped MCP server: a stdio child process with an SDK client in front of it.
//
// It owns the child's whole life: start (connect + list every tool), the tool list
// as the server changes it, calls with timeout and cancellation, and recovery. A
// server that dies after it was ready is restarted with exponential backoff; a call made
// meanwhile waits for the restart within its own timeout, then goes out; only a server that
// stays down past that timeout fails the call, with its last error.
// A server that fails its first start, or a start asked for by restart(), is not
// retried automatically: the caller (the `serve` command, the UI) decides.

import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StdioClientTransport,
  getDefaultEnvironment,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  ErrorCode,
  ListToolsResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import type { ServerEntry } from "./server-config-types.js";
import { sameList } from "../../../shared/same-list.js";
import { Emitter } from "../util/emitter.js";
import { packageVersion } from "../package-version.js";

// ---- Types ---------------------------------------------------------------------------

export type ServerStatus = "starting" | "ready" | "failed" | "stopped";

export interface ServerState {
  status: ServerStatus;
  /** The most recent failure (with the last stderr lines), kept after recovery; null if none. */
  lastError: string | null;
  /** True while an automatic restart is scheduled or running after a crash. */
  restarting: boolean;
  /** Clock time of the next automatic restart attempt, while one is scheduled. */
  nextRestartAt: number | null;
  /** Automatic restart attempts since the server was created or restart() was called. */
  restartCount: number;
}

/** What a transport factory must give back: an SDK transport, with the child's stderr and pid when it has them. */
export interface ServerTransport extends Transport {
  readonly stderr?: Stream | null;
  readonly pid?: number | null;
}

export type TransportFactory = (params: StdioServerParameters) => ServerTransport;

/** Time, injectable so backoff can be observed without waiting on it. */
export interface Clock {
  now(): number;
  /** Runs fn after ms; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export interface WrappedServerOptions {
  transportFactory?: TransportFactory;
  clock?: Clock;
  backoff?: Partial<BackoffOptions>;
  clientInfo?: { name: string; version: string };
  startTimeoutMs?: number;
  /** PATH of the child when its entry sets none (default: this process's PATH). */
  path?: string;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

export interface WrappedServerEvents {
  status: (state: ServerState) => void;
  tools: (tools: readonly Tool[]) => void;
}

export type WrappedServerErrorCode =
  /** close() was called; the server will not come back. */
  | "closed"
  /** Not started yet, starting for the first time, or failed without an automatic restart. */
  | "not-ready"
  /** Crashed and an automatic restart is scheduled or running. */
  | "restarting"
  /** The call went out and the server gave no answer within timeoutMs. */
  | "timeout"
  /** The caller's signal aborted the call. */
  | "aborted"
  /** The connection closed while the call was out (the server died mid-call). */
  | "connection-closed"
  /** ServerSet only: no server of that name. */
  | "unknown-server";

/** A failure of the host side of a call or start, as opposed to an error the server answered with. */
export class WrappedServerError extends Error {
  override readonly name = "WrappedServerError";
  constructor(
    readonly code: WrappedServerErrorCode,
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A start that did not reach "ready"; carries the server's last stderr lines. */
export class ServerStartError extends Error {
  override readonly name = "ServerStartError";
  constructor(
    readonly server: string,
    message: string,
    readonly stderrTail: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// ---- Helpers -------------------------------------------------------------------------

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    // A pending restart must not keep a host that is otherwise done (tests, `serve` exit) alive.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export const defaultTransportFactory: TransportFactory = (params) =>
  new StdioClientTransport(params);

/** Delay before automatic restart attempt number `failures` (0-based). */
export function restartDelayMs(failures: number, backoff: BackoffOptions): number {
  // Capping the exponent keeps the product finite however long a server keeps failing.
  const factor = 2 ** Math.min(failures, 30);
  return Math.min(backoff.initialMs * factor, backoff.maxMs);
}

/** Keeps the last lines a child wrote to stderr, bounded in count and length. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly maxLines: number = SERVER_LIMITS.stderrTailLines,
    private readonly maxChars: number = SERVER_LIMITS.stderrLineMaxChars,
  ) {}

  write(chunk: Buffer | string): void {
    const textChunk = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    const parts = (this.partial + textChunk).split(/\r?\n/);
    // One char past the limit is kept so that cut() still sees the line was too long.
    this.partial = (parts.pop() ?? "").slice(0, this.maxChars + 1);
    for (const line of parts) {
      this.lines.push(this.cut(line));
      if (this.lines.length > this.maxLines) this.lines.shift();
    }
  }

  /** The last lines, counting a last line not yet ended by a newline. */
  snapshot(): string[] {
    const all = this.partial === "" ? this.lines : [...this.lines, this.cut(this.partial)];
    return all.slice(-this.maxLines);
  }

  private cut(line: string): string {
    return line.length > this.maxChars ? `${line.slice(0, this.maxChars)}…` : line;
  }
}

/** True when two entries start the same process: only then can a running server be kept. */
export function sameLaunch(a: ServerEntry, b: ServerEntry): boolean {
  const aEnv = Object.keys(a.env).sort();
  const bEnv = Object.keys(b.env).sort();
  return (
    a.command === b.command &&
    sameList(a.args, b.args) &&
    sameList(aEnv, bEnv) &&
    aEnv.every((key) => a.env[key] === b.env[key])
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withStderr(message: string, tail: readonly string[]): string {
  if (tail.length === 0) return `${message} (no stderr output)`;
  return `${message}\nLast lines of stderr:\n${tail.map((l) => `  ${l}`).join("\n")}`;
}

/** Lets stderr bytes still in flight (piped through a PassThrough) arrive before we read the tail. */
function settle(): Promise<void> {
  return new Promise((resolveSettle) => setImmediate(resolveSettle));
}

interface Connection {
  client: Client;
  transport: ServerTransport;
  stderr: StderrTail;
  /** Serialises tools/list re-fetches after list_changed notifications. */
  refreshing: Promise<void> | null;
  refreshAgain: boolean;
}

// ---- The server ----------------------------------------------------------------------

export class WrappedServer {
  private readonly transportFactory: TransportFactory;
  private readonly clock: Clock;
  private readonly backoff: BackoffOptions;
  private readonly clientInfo: { name: string; version: string };
  private readonly startTimeoutMs: number;
  private readonly path: string | undefined;

  private state: ServerState = {
    status: "stopped",
    lastError: null,
    restarting: false,
    nextRestartAt: null,
    restartCount: 0,
  };
  private currentTools: readonly Tool[] = [];
  private connection: Connection | null = null;
  /** Bumped whenever a connection is abandoned, so its late callbacks are ignored. */
  private generation = 0;
  private starting: Promise<void> | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private cancelRestartTimer: (() => void) | null = null;
  /** Consecutive automatic-restart failures: the backoff exponent. */
  private failures = 0;
  private readyAt: number | null = null;
  private lastStderr: readonly string[] = [];
  // A faulty listener must not stop the others or this server's state machine.
  private readonly events = new Emitter<WrappedServerEvents>((event, error) =>
    console.error(`WrappedServer "${this.name}": ${String(event)} listener threw:`, error),
  );

  private currentEntry: ServerEntry;

  constructor(
    readonly name: string,
    entry: ServerEntry,
    options: WrappedServerOptions = {},
  ) {
    this.currentEntry = entry;
    this.transportFactory = options.transportFactory ?? defaultTransportFactory;
    this.clock = options.clock ?? systemClock;
    this.backoff = {
      initialMs: options.backoff?.initialMs ?? SERVER_LIMITS.restartBackoffInitialMs,
      maxMs: options.backoff?.maxMs ?? SERVER_LIMITS.restartBackoffMaxMs,
      resetAfterMs: options.backoff?.resetAfterMs ?? SERVER_LIMITS.restartBackoffResetAfterMs,
    };
    this.clientInfo = options.clientInfo ?? { name: "codemode", version: packageVersion() };
    this.startTimeoutMs = options.startTimeoutMs ?? SERVER_LIMITS.startTimeoutMs;
    this.path = options.path;
  }

  get entry(): ServerEntry {
    return this.currentEntry;
  }

  /**
   * Takes a new entry that starts the same process (only allow/private/secretEnv
   * differ), without a restart. An entry that launches differently needs a new server.
   */
  updateEntry(entry: ServerEntry): void {
    if (!sameLaunch(this.currentEntry, entry)) {
      throw new Error(`Server "${this.name}": a changed command, args or env needs a restart`);
    }
    this.currentEntry = entry;
  }

  get status(): ServerStatus {
    return this.state.status;
  }

  /** A copy of the current state. */
  get info(): ServerState {
    return { ...this.state };
  }

  /** The tools of the last successful listing (kept while a crashed server restarts). */
  get tools(): readonly Tool[] {
    return this.currentTools;
  }

  /** Last stderr lines of the running process, or of the last one if none runs. */
  get stderrTail(): readonly string[] {
    return this.connection ? this.connection.stderr.snapshot() : this.lastStderr;
  }

  /** Pid of the running child, if the transport exposes it. */
  get pid(): number | null {
    return this.connection?.transport.pid ?? null;
  }

  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof WrappedServerEvents>(event: K, listener: WrappedServerEvents[K]): () => void {
    return this.events.on(event, listener);
  }

  /** Starts the server if it is not running or starting; resolves once it is ready. */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    if (this.starting) return this.starting;
    if (this.state.status === "ready" && this.connection) return Promise.resolve();
    // A start while an automatic restart is pending takes its place.
    this.cancelPendingRestart();
    return this.launch("manual");
  }

  /** Stops the current process (if any) and starts a new one, forgetting past failures. */
  restart(): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    this.cancelPendingRestart();
    this.failures = 0;
    this.state = { ...this.state, restartCount: 0 };
    // Tracked as the current start from the first moment, so a start() meanwhile joins it.
    return this.track(
      (async () => {
        await this.abandonConnection();
        return this.connect("manual");
      })(),
    );
  }

  /** Stops the server for good: no more restarts, the child is killed. Idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    this.cancelPendingRestart();
    this.closing = (async () => {
      await this.abandonConnection();
      this.setState({ status: "stopped", restarting: false, nextRestartAt: null });
    })();
    return this.closing;
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    if (this.closed) throw this.closedError();
    // A crash a moment ago is not the caller's problem: the call waits for the restart, within
    // its own timeout, and the time waited counts against that timeout.
    const startedAt = Date.now();
    if (this.isRestarting()) await this.waitForRestart(tool, options);
    const timeoutMs = Math.max(1, options.timeoutMs - (Date.now() - startedAt));
    const connection = this.connection;
    if (this.closed) throw this.closedError();
    if (this.state.status !== "ready" || !connection) {
      throw new WrappedServerError(
        "not-ready",
        this.name,
        `Server "${this.name}" is not ready (${this.state.status})`,
      );
    }
    if (options.signal.aborted) throw this.abortedError(tool, options.signal.reason);

    // A per-call signal: the SDK never removes its abort listener, and a run's one signal
    // is shared by up to hundreds of calls. Ours is dropped with the call.
    const perCall = new AbortController();
    const forwardAbort = (): void => perCall.abort(options.signal.reason);
    options.signal.addEventListener("abort", forwardAbort, { once: true });
    try {
      const result = await connection.client.request(
        { method: "tools/call", params: { name: tool, arguments: args } },
        CallToolResultSchema,
        { signal: perCall.signal, timeout: timeoutMs },
      );
      return result;
    } catch (error) {
      if (options.signal.aborted) throw this.abortedError(tool, options.signal.reason);
      if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
        throw new WrappedServerError(
          "timeout",
          this.name,
          `Tool "${tool}" of server "${this.name}" did not answer within ${options.timeoutMs} ms`,
          { cause: error },
        );
      }
      if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) {
        throw new WrappedServerError(
          "connection-closed",
          this.name,
          `Server "${this.name}" closed the connection during the call to "${tool}"`,
          { cause: error },
        );
      }
      if (!(error instanceof McpError) && this.connection !== connection) {
        // The SDK says "Not connected" when the transport went away under the call.
        throw new WrappedServerError(
          "connection-closed",
          this.name,
          `Server "${this.name}" closed the connection during the call to "${tool}"`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      options.signal.removeEventListener("abort", forwardAbort);
    }
  }

  // ---- Internals ---------------------------------------------------------------------

  /** Crashed and not back yet: a restart is scheduled or running, or the crash is being handled. */
  private isRestarting(): boolean {
    return this.state.restarting || (this.state.status === "ready" && !this.connection);
  }

  /**
   * Waits until the server is back (or closed, or no longer restarting by itself). Past the
   * call's timeout it fails with the server's last error: the one case a caller is told.
   */
  private async waitForRestart(tool: string, options: CallOptions): Promise<void> {
    const { signal } = options;
    // Ends a little before the call's timeout: a caller timing the call itself (the bridge)
    // would otherwise cut it first, and its "timed out" would hide the server's last error.
    const timeoutMs = Math.max(1, options.timeoutMs - SERVER_LIMITS.restartWaitReserveMs);
    let timedOut = false;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        offStatus();
        cancelTimer();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const offStatus = this.events.on("status", () => {
        if (this.closed || !this.isRestarting()) done();
      });
      // A real timer, as the SDK's own request timeout is: the injectable clock is for the
      // restart backoff.
      const timer = setTimeout(() => {
        timedOut = true;
        done();
      }, timeoutMs);
      const cancelTimer = (): void => clearTimeout(timer);
      signal.addEventListener("abort", done, { once: true });
      // The state may have changed between the caller's check and now.
      if (signal.aborted || this.closed || !this.isRestarting()) done();
    });
    if (signal.aborted) throw this.abortedError(tool, signal.reason);
    if (this.closed) throw this.closedError();
    if (timedOut && this.isRestarting()) {
      throw new WrappedServerError(
        "restarting",
        this.name,
        `Server "${this.name}" did not come back within ${options.timeoutMs} ms after a failure; its last error: ${this.state.lastError ?? "unknown"}`,
      );
    }
  }

  /**
   * One start attempt. "manual" failures end in "failed" and reject; "auto" (after a
   * crash) failures schedule the next attempt with a longer delay.
   */
  private launch(mode: "manual" | "auto"): Promise<void> {
    return this.track(this.connect(mode));
  }

  private track(attempt: Promise<void>): Promise<void> {
    this.starting = attempt;
    const clear = (): void => {
      if (this.starting === attempt) this.starting = null;
    };
    attempt.then(clear, clear);
    return attempt;
  }

  private async connect(mode: "manual" | "auto"): Promise<void> {
    // close() may have come while a restart was waiting for the old process to go.
    if (this.closed) throw this.closedError();
    const generation = ++this.generation;
    this.setState({
      status: "starting",
      restarting: mode === "auto",
      nextRestartAt: null,
    });

    const stderr = new StderrTail();
    let transport: ServerTransport;
    let client: Client;
    try {
      transport = this.transportFactory({
        command: this.currentEntry.command,
        args: this.currentEntry.args,
        // Only the SDK's safe defaults (PATH, HOME, ...) and what the entry names:
        // the host's own environment (tokens, keys) never reaches a wrapped server.
        // PATH is the one the host resolved from the user's login shell (server-path.ts), so
        // `npx` or `uvx` are found as in the user's terminal; the command is looked up in it.
        env: {
          ...getDefaultEnvironment(),
          ...(this.path !== undefined ? { PATH: this.path } : {}),
          ...this.currentEntry.env,
        },
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer | string) => stderr.write(chunk));
      client = new Client(this.clientInfo, { capabilities: {} });
    } catch (error) {
      return this.startFailed(mode, generation, error, stderr, null);
    }
    const connection: Connection = {
      client,
      transport,
      stderr,
      refreshing: null,
      refreshAgain: false,
    };
    this.connection = connection;
    client.onclose = () => this.onConnectionClosed(generation);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refreshTools(generation, connection);
    });

    try {
      await client.connect(transport, { timeout: this.startTimeoutMs });
      const tools = await this.listAllTools(client);
      if (generation !== this.generation) throw this.supersededError();
      this.readyAt = this.clock.now();
      this.setTools(tools);
      this.setState({ status: "ready", restarting: false, nextRestartAt: null });
    } catch (error) {
      return this.startFailed(mode, generation, error, stderr, connection);
    }
  }

  private async startFailed(
    mode: "manual" | "auto",
    generation: number,
    error: unknown,
    stderr: StderrTail,
    connection: Connection | null,
  ): Promise<never> {
    if (generation !== this.generation) {
      // close() or restart() took over; they close the connection themselves.
      throw this.closed ? this.closedError() : this.supersededError();
    }
    this.generation++;
    if (connection && this.connection === connection) this.connection = null;
    // Kill a child that is still up (a start timeout) before reading its last words.
    await connection?.client.close().catch(() => undefined);
    await settle();
    const tail = stderr.snapshot();
    this.lastStderr = tail;
    const message = withStderr(`Server "${this.name}" failed to start: ${describe(error)}`, tail);
    if (this.closed) throw this.closedError();
    if (mode === "auto") {
      this.scheduleRestart(message);
    } else {
      this.setState({
        status: "failed",
        lastError: message,
        restarting: false,
        nextRestartAt: null,
      });
    }
    throw new ServerStartError(this.name, message, tail, { cause: error });
  }

  /** Follows `nextCursor` until the server stops giving one. */
  private async listAllTools(client: Client): Promise<Tool[]> {
    // Straight request() rather than client.listTools(): the SDK's listTools caches
    // output-schema validators per page, forgetting earlier pages' tools. Results are
    // untrusted further on anyway, so no structured-content validation is done here.
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < SERVER_LIMITS.toolListMaxPages; page++) {
      const result = await client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        ListToolsResultSchema,
        { timeout: this.startTimeoutMs },
      );
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor "${cursor}"`);
      seen.add(cursor);
    }
    throw new Error(`tools/list went on for more than ${SERVER_LIMITS.toolListMaxPages} pages`);
  }

  /** Re-lists after `notifications/tools/list_changed`; bursts collapse into one more listing. */
  private refreshTools(generation: number, connection: Connection): void {
    if (connection.refreshing) {
      connection.refreshAgain = true;
      return;
    }
    connection.refreshing = (async () => {
      do {
        connection.refreshAgain = false;
        try {
          const tools = await this.listAllTools(connection.client);
          if (generation === this.generation && this.state.status === "ready") this.setTools(tools);
        } catch {
          // The previous list stays; if the connection died, onclose reports that.
        }
      } while (connection.refreshAgain && generation === this.generation);
      connection.refreshing = null;
    })();
  }

  private onConnectionClosed(generation: number): void {
    // Closes during a start are reported by the start itself; stale ones are ignored.
    if (generation !== this.generation || this.closed || this.state.status !== "ready") return;
    const current = ++this.generation;
    const connection = this.connection;
    this.connection = null;
    const uptime = this.readyAt === null ? 0 : this.clock.now() - this.readyAt;
    this.readyAt = null;
    if (uptime >= this.backoff.resetAfterMs) this.failures = 0;
    void (async () => {
      await settle();
      const tail = connection?.stderr.snapshot() ?? [];
      this.lastStderr = tail;
      // The transport is already closed; this only releases the client's state.
      await connection?.client.close().catch(() => undefined);
      // close(), restart() or start() took over meanwhile: they own what happens next.
      if (this.closed || this.generation !== current) return;
      this.scheduleRestart(withStderr(`Server "${this.name}" exited unexpectedly`, tail));
    })();
  }

  private scheduleRestart(lastError: string): void {
    if (this.closed) return;
    const delay = restartDelayMs(this.failures, this.backoff);
    this.failures++;
    const nextRestartAt = this.clock.now() + delay;
    this.setState({ status: "failed", lastError, restarting: true, nextRestartAt });
    this.cancelRestartTimer = this.clock.setTimer(() => {
      this.cancelRestartTimer = null;
      this.state = { ...this.state, restartCount: this.state.restartCount + 1 };
      // Failures schedule the next attempt inside startFailed; nothing waits on this one.
      this.launch("auto").catch(() => undefined);
    }, delay);
  }

  private cancelPendingRestart(): void {
    this.cancelRestartTimer?.();
    this.cancelRestartTimer = null;
  }

  /** Forgets the current connection (ignoring its late callbacks) and kills its child. */
  private async abandonConnection(): Promise<void> {
    this.generation++;
    const connection = this.connection;
    this.connection = null;
    if (!connection) return;
    await connection.client.close().catch(() => undefined);
    await settle();
    this.lastStderr = connection.stderr.snapshot();
  }

  private setTools(tools: readonly Tool[]): void {
    // Restarts list the same tools again; only a real change should rebuild the catalog.
    if (JSON.stringify(tools) === JSON.stringify(this.currentTools)) return;
    this.currentTools = tools;
    this.emit("tools", tools);
  }

  private setState(change: Partial<ServerState>): void {
    this.state = { ...this.state, ...change };
    this.emit("status", { ...this.state });
  }

  private emit<K extends keyof WrappedServerEvents>(
    event: K,
    ...args: Parameters<WrappedServerEvents[K]>
  ): void {
    this.events.emit(event, ...args);
  }

  private closedError(): WrappedServerError {
    return new WrappedServerError("closed", this.name, `Server "${this.name}" is closed`);
  }

  private supersededError(): WrappedServerError {
    return new WrappedServerError(
      "not-ready",
      this.name,
      `Start of server "${this.name}" was superseded by a restart`,
    );
  }

  private abortedError(tool: string, reason: unknown): WrappedServerError {
    return new WrappedServerError(
      "aborted",
      this.name,
      `Call to "${tool}" of server "${this.name}" was cancelled`,
      { cause: reason },
    );
  }
}

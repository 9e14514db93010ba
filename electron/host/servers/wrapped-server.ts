// One wrapped MCP server: a stdio child process with an SDK client in front of it.
//
// It owns the child's whole life: start (connect + list every tool), the tool list
// as the server changes it, calls with timeout and cancellation, and recovery. A
// server that dies after it was ready is restarted with exponential backoff; a call made
// meanwhile waits for the restart within its own timeout, then goes out; only a server that
// stays down past that timeout fails the call, with its last error.
// A server that fails its first start, or a start asked for by restart(), is not
// retried automatically: the caller (the `serve` command, the UI) decides.
// The parts live beside it: the connection (server-connection.ts), the backoff
// (restart-backoff.ts), the wait of a call for a restart (restart-wait.ts), the call itself
// (tool-call.ts), the tool listing (tool-listing.ts) and the stderr tail (stderr-tail.ts).

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";
import { ToolChangedError } from "../core/ports/tool-caller.js";
import { Emitter } from "../util/emitter.js";
import { packageVersion } from "../util/package-version.js";
import { backoffWithDefaults, RestartPolicy, systemClock } from "./restart-backoff.js";
import { sameLaunch } from "./same-launch.js";
import {
  defaultTransportFactory,
  followToolChanges,
  spawnConnection,
  STOPPED_RESTART_MIN_MS,
  type Connection,
} from "./server-connection.js";
import { StderrTail, settle, withStderr } from "./stderr-tail.js";
import { waitForRestart, type RestartingServer } from "./restart-wait.js";
import { requestToolCall } from "./tool-call.js";
import { listAllTools, sameForms, type ToolListing } from "./tool-listing.js";
import type { ListedForm } from "./pins/pin-state.js";
import {
  ServerStartError,
  abortedError,
  closedError,
  notReadyError,
  startFailureText,
  supersededError,
  type CallOptions,
  type ServerState,
  type ServerStatus,
  type TransportFactory,
  type WrappedServerEvents,
  type WrappedServerOptions,
  SERVER_START_TIMEOUT_MS,
} from "./wrapped-server-types.js";

// The server's public shapes, for its users to import from one place.
export * from "./wrapped-server-types.js";

export class WrappedServer {
  private readonly transportFactory: TransportFactory;
  private readonly restarts: RestartPolicy;
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
  /** Each listed tool's whole wire object as pinned; null until the first listing. */
  private currentForms: readonly ListedForm[] | null = null;
  private connection: Connection | null = null;
  /** Bumped whenever a connection is abandoned, so its late callbacks are ignored. */
  private generation = 0;
  private starting: Promise<void> | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;
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
    this.restarts = new RestartPolicy(
      options.clock ?? systemClock,
      backoffWithDefaults(options.backoff),
    );
    this.clientInfo = options.clientInfo ?? { name: "codemode", version: packageVersion() };
    this.startTimeoutMs = options.startTimeoutMs ?? SERVER_START_TIMEOUT_MS;
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

  /**
   * The last listing's tools in the form they are pinned by (whole wire object, canonical,
   * hashed), in listing order; null while this server has never listed its tools.
   */
  get forms(): readonly ListedForm[] | null {
    return this.currentForms;
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
    if (this.closed) return Promise.reject(closedError(this.name));
    if (this.starting) return this.starting;
    if (this.state.status === "ready" && this.connection) return Promise.resolve();
    // A start while an automatic restart is pending takes its place.
    this.restarts.cancel();
    return this.launch("manual");
  }

  /** Stops the current process (if any) and starts a new one, forgetting past failures. */
  restart(): Promise<void> {
    if (this.closed) return Promise.reject(closedError(this.name));
    this.restarts.cancel();
    this.restarts.reset();
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
    this.restarts.cancel();
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
    if (this.closed) throw closedError(this.name);
    // A crash a moment ago is not the caller's problem: the call waits for the restart, within
    // its own timeout, and the time waited counts against that timeout.
    const startedAt = Date.now();
    if (this.isRestarting()) {
      await waitForRestart(this.restartView(), tool, options);
      // The restarted server listed its tools before it was ready, and the catalog was rebuilt
      // from that listing: a definition now held for review or changed stops the call here.
      if (options.stillGoes?.() === false) {
        throw new ToolChangedError(
          `Server "${this.name}" restarted while the call to ${JSON.stringify(tool)} waited, ` +
            "and the tool changed with it, so the call was not sent",
        );
      }
    }
    const timeoutMs = Math.max(1, options.timeoutMs - (Date.now() - startedAt));
    const connection = this.connection;
    if (this.closed) throw closedError(this.name);
    if (this.state.status !== "ready" || !connection) {
      throw notReadyError(this.name, this.state.status);
    }
    if (options.signal.aborted) throw abortedError(this.name, tool, options.signal.reason);
    return requestToolCall({
      server: this.name,
      client: connection.client,
      tool,
      args,
      options,
      timeoutMs,
      connectionGone: () => this.connection !== connection,
    });
  }

  // ---- Internals ---------------------------------------------------------------------

  /** Crashed and not back yet: a restart is scheduled or running, or the crash is being handled. */
  private isRestarting(): boolean {
    return this.state.restarting || (this.state.status === "ready" && !this.connection);
  }

  /** What a call waiting for a restart sees of this server. */
  private restartView(): RestartingServer {
    return {
      name: this.name,
      isClosed: () => this.closed,
      isRestarting: () => this.isRestarting(),
      lastError: () => this.state.lastError,
      onStatus: (listener) => this.events.on("status", listener),
    };
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
    if (this.closed) throw closedError(this.name);
    const generation = ++this.generation;
    this.setState({
      status: "starting",
      restarting: mode === "auto",
      nextRestartAt: null,
    });

    const stderr = new StderrTail();
    let connection: Connection;
    try {
      connection = spawnConnection({
        transportFactory: this.transportFactory,
        entry: this.currentEntry,
        path: this.path,
        clientInfo: this.clientInfo,
        stderr,
      });
    } catch (error) {
      return this.startFailed(mode, generation, error, stderr, null);
    }
    const { client, transport } = connection;
    this.connection = connection;
    client.onclose = () => this.onConnectionClosed(generation);
    followToolChanges(connection, {
      timeoutMs: this.startTimeoutMs,
      isCurrent: () => generation === this.generation,
      apply: (listing) => {
        if (this.state.status === "ready") this.setTools(listing);
      },
    });

    try {
      await client.connect(transport, { timeout: this.startTimeoutMs });
      const listing = await listAllTools(client, this.startTimeoutMs);
      if (generation !== this.generation) throw supersededError(this.name);
      this.restarts.markReady();
      this.setTools(listing);
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
      throw this.closed ? closedError(this.name) : supersededError(this.name);
    }
    this.generation++;
    if (connection && this.connection === connection) this.connection = null;
    // Kill a child that is still up (a start timeout) before reading its last words.
    await connection?.client.close().catch(() => undefined);
    await settle();
    const tail = stderr.snapshot();
    this.lastStderr = tail;
    const why = connection?.stoppedBecause ?? startFailureText(error);
    const message = withStderr(`Server "${this.name}" failed to start: ${why}`, tail);
    if (this.closed) throw closedError(this.name);
    if (mode === "auto") {
      this.scheduleRestart(message, connection?.stoppedBecause);
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

  private onConnectionClosed(generation: number): void {
    // Closes during a start are reported by the start itself; stale ones are ignored.
    if (generation !== this.generation || this.closed || this.state.status !== "ready") return;
    const current = ++this.generation;
    const connection = this.connection;
    this.connection = null;
    this.restarts.markExited();
    void (async () => {
      await settle();
      const tail = connection?.stderr.snapshot() ?? [];
      this.lastStderr = tail;
      // The transport is already closed; this only releases the client's state.
      await connection?.client.close().catch(() => undefined);
      // close(), restart() or start() took over meanwhile: they own what happens next.
      if (this.closed || this.generation !== current) return;
      const stopped = connection?.stoppedBecause;
      const why = stopped ? `was stopped: ${stopped}` : "exited unexpectedly";
      this.scheduleRestart(withStderr(`Server "${this.name}" ${why}`, tail), stopped);
    })();
  }

  /** `stoppedBecause`: the host stopped it, and it waits STOPPED_RESTART_MIN_MS at least. */
  private scheduleRestart(lastError: string, stoppedBecause?: string | null): void {
    if (this.closed) return;
    const min = stoppedBecause ? STOPPED_RESTART_MIN_MS : 0;
    const { delayMs, at: nextRestartAt } = this.restarts.nextDelay(min);
    this.setState({ status: "failed", lastError, restarting: true, nextRestartAt });
    this.restarts.arm(delayMs, () => {
      this.state = { ...this.state, restartCount: this.state.restartCount + 1 };
      // Failures schedule the next attempt inside startFailed; nothing waits on this one.
      this.launch("auto").catch(() => undefined);
    });
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

  private setTools({ tools, forms }: ToolListing): void {
    // Restarts list the same tools again; only a real change should rebuild the catalog. The
    // wire forms are compared (a change the SDK's schema drops still counts for the pins), and
    // the first listing is always told, an empty one too: it is what tools get pinned against.
    const previous = this.currentForms;
    if (previous !== null && sameForms(previous, forms)) return;
    this.currentTools = tools;
    this.currentForms = forms;
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
}

import { configSecrets } from "../secrets/secret-mask.js";
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { CATALOG_LIMITS, PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import type { RunResult, StopReason } from "../../../../shared/run-result.js";
import type { ApprovalGate, Elicit } from "../bridge/approval-gate.js";
import { Bridge } from "../bridge/bridge.js";
import type { BridgeEventSink } from "../bridge/bridge-events.js";
import type { TaintRegistry } from "../bridge/taint.js";
import { buildCatalog } from "../catalog/catalog-builder.js";
import type { Catalog, ServerTools } from "../catalog/catalog-types.js";
import { keepUnchanged } from "../catalog/keep-unchanged.js";
import { describeRunPython } from "../catalog/run-python-description.js";
import { catalogSandboxTools } from "../catalog/sandbox-tools.js";
import type { RunFileData, RunImageData, SandboxRunner, SandboxTool } from "../ports/run-types.js";
import type {
  AttachmentPort,
  WorkspacePort,
  WorkspaceSessionPort,
} from "../ports/workspace-port.js";
import {
  openRunWorkspace,
  sandboxWorkspace,
  withAttachedFiles,
  type WorkspaceKeepDiffered,
} from "./run-workspace.js";
import type { ServerState } from "../ports/server-state.js";
import type { ToolCaller } from "../ports/tool-caller.js";
import type { ServersConfig } from "../ports/server-config-types.js";
import type { RunPythonInput } from "./run-python-schema.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { Emitter } from "../../util/emitter.js";
import { downServers, type DownServer } from "../catalog/down-servers.js";
import { heldNamedIn } from "./held-names.js";
import { withUnanswered } from "./unanswered-calls.js";

function notRun(error: string): RunResult {
  return {
    stdout: "",
    stderr: "",
    error,
    exit_code: null,
    truncated: false,
    timed_out: false,
    stopped: null,
    duration_ms: 0,
    calls: 0,
    images: [],
  };
}

const EMPTY_CATALOG: Catalog = { tools: [], byPyName: new Map(), warnings: [], leftOut: [] };

export interface EngineSettings {
  maxCallsPerRun?: number | undefined;
  descriptionBudgetChars?: number | undefined;
  serverConcurrency?: number | undefined;
  callTimeoutMs?: number | undefined;
}

// The input's one shape is the MCP tool's schema; the engine's callers name it from here.
export type { RunPythonInput };

export interface RunContext {
  /** Whose taint applies (the MCP client's name; `serve` has one client). */
  client: string;
  signal?: AbortSignal | undefined;
  /** Told of each image the code attaches (run_python returns them as image content). */
  onImage?: ((image: RunImageData) => void) | undefined;
  /** Asks the client about an "ask first" call (MCP elicitation), when it supports that. */
  elicit?: Elicit | undefined;
  /** Settles once the run's answer has gone out (RunHooks.removeAfter). */
  answered?: Promise<void> | undefined;
}

/** What the engine needs of the wrapped servers: the servers layer's ServerSet, or a test's. */
export interface EngineServers extends ToolCaller {
  /** The config the running servers were started with. */
  readonly config: ServersConfig;
  readonly servers: ReadonlyMap<
    string,
    { readonly info: ServerState; readonly tools: readonly unknown[] }
  >;
  /** Each server's tools with its allow list and private labels: what the catalog is built from. */
  serverTools(): ServerTools[];
  /** A server's tools changed, or its status did; returns the unsubscribe. */
  on(event: "tools" | "status", listener: () => void): () => void;
}

export interface RunEvents {
  runStarted?(run: {
    runId: string;
    client: string;
    code: string;
    runtime: SandboxRuntime;
    /** The workspace the run names, if any. */
    workspace?: string | undefined;
  }): void;
  runFinished?(run: {
    runId: string;
    client: string;
    result: RunResult;
    runtime: SandboxRuntime;
  }): void;
  /** Each image a run attached, with its bytes (the host keeps recent ones for the UI). */
  runImage?(run: { runId: string; image: RunImageData }): void;
  /** A run's keep, after its answer, found otherwise than the answer said. */
  workspaceKeepDiffered?(run: { runId: string; client: string } & WorkspaceKeepDiffered): void;
}

/**
 * run_python itself: wrapped servers -> catalog -> bridge -> sandbox. Every face of the
 * app (serve, the daemon, the Electron main process) drives runs through this one class.
 */
export class CodeModeEngine {
  private current: Catalog;
  private bridge: Bridge;
  settings: EngineSettings;
  private readonly events = new Emitter<{
    change: () => void;
    error: (message: string) => void;
  }>();
  private readonly unsubscribe: () => void;
  /** Problems of the last live catalog rebuild that was refused (keep-unchanged.ts). */
  lastCatalogError: string | null = null;
  /** Runs in progress, by id: what stops one when a host-side bound says so. */
  private readonly runStops = new Map<string, AbortController>();

  constructor(
    private readonly deps: {
      servers: EngineServers;
      sandbox: SandboxRunner;
      taint: TaintRegistry;
      events: BridgeEventSink;
      runEvents?: RunEvents;
      prefixWithServer: boolean;
      settings?: EngineSettings;
      /**
       * What the catalog is built from (tools and each server's allow/private). Default: the
       * server set's own view. The app passes its saved config's policy, so a changed label
       * applies at once, not after servers being restarted have stopped.
       */
      serverTools?: () => ServerTools[];
      /**
       * serve stops on a catalog error at startup (the default); the app starts anyway
       * with no tools and shows the error, so the user can fix the config in the UI.
       */
      tolerateCatalogErrors?: boolean;
      /** "Ask first" approvals; absent (serve): no tool asks. */
      approvals?: ApprovalGate;
      /** The clients' named workspaces; absent: a run naming one is refused, saying so. */
      workspaces?: WorkspacePort;
      /** Keeps the files runs attach; absent: attached files are left out of results. */
      attachments?: AttachmentPort;
    },
  ) {
    this.current = EMPTY_CATALOG;
    if (deps.tolerateCatalogErrors) this.rebuild();
    // Throws CatalogError: a clash or a label naming no tool stops startup.
    else this.current = this.build();
    this.settings = deps.settings ?? {};
    this.bridge = this.makeBridge();
    const offTools = deps.servers.on("tools", () => this.rebuild());
    // A server going down or coming up changes the description's list of servers not running.
    const offStatus = deps.servers.on("status", () => this.events.emit("change"));
    this.unsubscribe = () => {
      offTools();
      offStatus();
    };
  }

  private makeBridge(): Bridge {
    return new Bridge({
      catalog: () => this.current,
      caller: this.deps.servers,
      taint: this.deps.taint,
      events: this.deps.events,
      serverConcurrency: this.settings.serverConcurrency,
      callTimeoutMs: this.settings.callTimeoutMs,
      // Read from the running servers' own config, so what they were started with is masked.
      secrets: () => configSecrets(this.deps.servers.config),
      approvals: this.deps.approvals,
    });
  }

  /** New limits apply to the next run; the description changes with them. */
  updateSettings(settings: EngineSettings): void {
    const concurrencyChanged = settings.serverConcurrency !== this.settings.serverConcurrency;
    this.settings = settings;
    // Runs in flight keep the bridge they started with and its per-server slots.
    if (concurrencyChanged) this.bridge = this.makeBridge();
    this.events.emit("change");
  }

  private input(): ServerTools[] {
    return (this.deps.serverTools ?? (() => this.deps.servers.serverTools()))();
  }

  private build(input: ServerTools[] = this.input()): Catalog {
    return buildCatalog(input, {
      prefixWithServer: this.deps.prefixWithServer,
      // A server restarts (and lists its tools again) whenever its env changes: the catalog is
      // rebuilt then, with the new secrets.
      secrets: configSecrets(this.deps.servers.config),
    });
  }

  /**
   * Rebuilds the catalog after a server's tools changed. If that fails, the old one stays for
   * the tools that did not change (keep-unchanged.ts), and the error is told.
   */
  rebuild(): void {
    let input: ServerTools[] | undefined;
    try {
      input = this.input();
      this.current = this.build(input);
      this.lastCatalogError = null;
    } catch (error) {
      this.lastCatalogError = error instanceof Error ? error.message : String(error);
      const kept = input === undefined ? this.current : keepUnchanged(this.current, input);
      const changed = kept !== this.current;
      this.current = kept;
      this.events.emit("error", this.lastCatalogError);
      if (changed) this.events.emit("change");
      return;
    }
    this.events.emit("change");
  }

  get catalog(): Catalog {
    return this.current;
  }

  /**
   * The current catalog as a run's start line carries it: the sandbox stages it in warm
   * containers (SandboxOptions.stagedTools). Made once per catalog.
   */
  stagedTools(): readonly SandboxTool[] {
    return catalogSandboxTools(this.current);
  }

  /** Called whenever the catalog (and so the run_python description) changed. */
  onCatalogChange(listener: () => void): () => void {
    return this.events.on("change", listener);
  }

  /** Called when a live rebuild was refused (a clash, a label naming no tool): see rebuild(). */
  onCatalogError(listener: (message: string) => void): () => void {
    return this.events.on("error", listener);
  }

  /** Configured servers that are not running, with the reason the model is told. */
  downServers(): DownServer[] {
    const facts = [...this.deps.servers.servers].map(([name, server]) => ({
      name,
      info: server.info,
      toolCount: server.tools.length,
    }));
    return downServers(facts, configSecrets(this.deps.servers.config), this.deps.prefixWithServer);
  }

  description(): string {
    return describeRunPython(
      this.current,
      this.settings.descriptionBudgetChars ?? CATALOG_LIMITS.defaultDescriptionBudgetChars,
      {
        maxCallsPerRun: this.settings.maxCallsPerRun,
        deadlineSeconds: this.deps.sandbox.deadlineSeconds,
        down: this.downServers().filter((d) => !d.firstStart),
      },
    );
  }

  async run(input: RunPythonInput, context: RunContext): Promise<RunResult> {
    // Its start names the engine it goes to: one the app is still looking for is waited for.
    await this.deps.sandbox.settled?.(context.signal);
    const runId = randomUUID();
    // Aborted as the run ends: calls still in flight are given up. Each call in flight listens
    // on its signal; asyncio.gather can have many at once.
    const callsEnd = new AbortController();
    setMaxListeners(PROTOCOL_LIMITS.maxPendingCalls + 1, callsEnd.signal);
    const catalog = this.current;
    // Aborted, with a StopReason, when a bound kept outside the sandbox stops the run.
    const runStop = new AbortController();
    this.runStops.set(runId, runStop);
    // When the run's deadline falls (performance.now()), once the sandbox has started it.
    let deadlineAt: number | undefined;
    const bridgeRun = this.bridge.startRun({
      runId,
      client: context.client,
      maxCalls: this.settings.maxCallsPerRun,
      signal: callsEnd.signal,
      onBudgetSpent: () => runStop.abort("call_budget" satisfies StopReason),
      code: input.code,
      elicit: context.elicit,
      timeLeftMs: () => (deadlineAt === undefined ? undefined : deadlineAt - performance.now()),
    });
    // The setting when the run starts; its end names the runtime of the container it ran in.
    const runtime = this.deps.sandbox.runtime ?? "runc";
    let ranOn = runtime;
    this.deps.runEvents?.runStarted?.({
      runId,
      client: context.client,
      code: input.code,
      runtime,
      ...(input.workspace === undefined ? {} : { workspace: input.workspace }),
    });
    let result: RunResult;
    const files: RunFileData[] = [];
    let session: WorkspaceSessionPort | null = null;
    try {
      session = await openRunWorkspace(this.deps, input.workspace, {
        client: context.client,
        runId,
      });
      result = await this.deps.sandbox.run(
        {
          code: input.code,
          stdin: input.stdin,
          deadlineSeconds: input.timeout_s,
          tools: catalogSandboxTools(catalog),
          // Their names raise ToolError saying they are held for review, not NameError.
          held: heldNamedIn(input.code, catalog.held, catalog.heldMethods),
          // Their tool names raise ToolError with the reason in the code, not NameError.
          down: this.downServers().flatMap((d) =>
            d.prefix === null
              ? []
              : [
                  {
                    prefix: d.prefix,
                    server: d.server,
                    reason: d.reason,
                    ...(d.namespace === null ? {} : { namespace: d.namespace }),
                  },
                ],
          ),
          workspace: session
            ? sandboxWorkspace(
                session,
                () => this.deps.taint.isTainted(context.client),
                (differed) =>
                  this.deps.runEvents?.workspaceKeepDiffered?.({
                    runId,
                    client: context.client,
                    ...differed,
                  }),
              )
            : undefined,
        },
        {
          onCall: (tool, args) => bridgeRun.call(tool, args),
          onImage: (image) => {
            this.deps.runEvents?.runImage?.({ runId, image });
            context.onImage?.(image);
          },
          onFile: (file) => files.push(file),
          signal: context.signal,
          limit: runStop.signal,
          onDeadline: (ms) => (deadlineAt = performance.now() + ms),
          onContainer: (container) => (ranOn = container.runtime),
          removeAfter: context.answered,
        },
      );
    } catch (error) {
      // The run is recorded as finished whatever giving its workspace back does.
      await session?.release().catch(() => undefined);
      this.runStops.delete(runId);
      callsEnd.abort();
      await bridgeRun.settled();
      // The log shows every run that started as finished, also one the sandbox refused.
      const message = error instanceof Error ? error.message : String(error);
      this.deps.runEvents?.runFinished?.({
        runId,
        client: context.client,
        result: notRun(message),
        runtime: ranOn,
      });
      throw error;
    }
    // Given back once the run's keep is done, after the answer: the answer does not wait.
    void session?.release().catch(() => undefined);
    // A run that ended while calls waited for the user says so: the model would otherwise read
    // only why the run stopped, with no word of the question left unanswered.
    result = withUnanswered(result, bridgeRun.waitingForUser());
    // Calls still in flight when the run ended are given up at once (a question waiting for
    // the user is withdrawn, and leaves the app's panel), before anything else is awaited: no
    // call goes out once the run has ended. Their entries land before the run's end, so the
    // log reads in order.
    this.runStops.delete(runId);
    callsEnd.abort();
    await bridgeRun.settled();
    // A file that cannot be kept is left out, saying why: it never costs the run its answer.
    result = await withAttachedFiles(result, files, this.deps.attachments, {
      client: context.client,
      runId,
    });
    this.deps.runEvents?.runFinished?.({ runId, client: context.client, result, runtime: ranOn });
    return result;
  }

  /**
   * Stops a run in progress for a bound kept outside the engine (the audit bytes of one run);
   * returns false when no such run is in progress.
   */
  stopRun(runId: string, reason: StopReason): boolean {
    const runStop = this.runStops.get(runId);
    if (runStop === undefined) return false;
    runStop.abort(reason);
    return true;
  }

  close(): void {
    this.unsubscribe();
    this.events.clear();
  }
}

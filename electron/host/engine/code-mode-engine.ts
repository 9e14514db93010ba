import { randomUUID } from "node:crypto";
import { CATALOG_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import { Bridge } from "../bridge/bridge.js";
import type { BridgeEventSink } from "../bridge/bridge-events.js";
import type { TaintRegistry } from "../bridge/taint.js";
import { buildCatalog } from "../catalog/catalog-builder.js";
import type { Catalog } from "../catalog/catalog-types.js";
import { describeRunPython } from "../catalog/run-python-description.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ServerSet } from "../servers/server-set.js";

export interface EngineSettings {
  maxCallsPerRun?: number | undefined;
  descriptionBudgetChars?: number | undefined;
  serverConcurrency?: number | undefined;
  callTimeoutMs?: number | undefined;
}

export interface RunPythonInput {
  code: string;
  stdin?: string | undefined;
  timeout_s?: number | undefined;
}

export interface RunContext {
  /** Whose taint applies (the MCP client's name; `serve` has one client). */
  client: string;
  signal?: AbortSignal | undefined;
}

export interface RunEvents {
  runStarted?(run: { runId: string; client: string; code: string }): void;
  runFinished?(run: { runId: string; client: string; result: RunResult }): void;
}

/**
 * run_python itself: wrapped servers -> catalog -> bridge -> sandbox. Every face of the
 * app (serve, the daemon, the Electron main process) drives runs through this one class.
 */
export class CodeModeEngine {
  private current: Catalog;
  private readonly bridge: Bridge;
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  /** Problems of the last live catalog rebuild that was refused (the old one stays). */
  lastCatalogError: string | null = null;

  constructor(
    private readonly deps: {
      servers: ServerSet;
      sandbox: Sandbox;
      taint: TaintRegistry;
      events: BridgeEventSink;
      runEvents?: RunEvents;
      prefixWithServer: boolean;
      settings?: EngineSettings;
    },
  ) {
    // Throws CatalogError at startup: a clash or a label naming no tool stops it.
    this.current = this.build();
    this.bridge = new Bridge({
      catalog: () => this.current,
      caller: deps.servers,
      taint: deps.taint,
      events: deps.events,
      serverConcurrency: deps.settings?.serverConcurrency,
      callTimeoutMs: deps.settings?.callTimeoutMs,
    });
    this.unsubscribe = deps.servers.on("tools", () => this.rebuild());
  }

  private build(): Catalog {
    return buildCatalog(this.deps.servers.serverTools(), {
      prefixWithServer: this.deps.prefixWithServer,
    });
  }

  /** Rebuilds the catalog after a server's tools changed; keeps the old one if it fails. */
  rebuild(): void {
    try {
      this.current = this.build();
      this.lastCatalogError = null;
    } catch (error) {
      this.lastCatalogError = error instanceof Error ? error.message : String(error);
      return;
    }
    for (const listener of this.listeners) listener();
  }

  get catalog(): Catalog {
    return this.current;
  }

  /** Called whenever the catalog (and so the run_python description) changed. */
  onCatalogChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  description(): string {
    return describeRunPython(
      this.current,
      this.deps.settings?.descriptionBudgetChars ?? CATALOG_LIMITS.defaultDescriptionBudgetChars,
      {
        maxCallsPerRun: this.deps.settings?.maxCallsPerRun,
        deadlineSeconds: this.deps.sandbox.deadlineSeconds,
      },
    );
  }

  async run(input: RunPythonInput, context: RunContext): Promise<RunResult> {
    const runId = randomUUID();
    const calls = new AbortController();
    const catalog = this.current;
    const calls_ = this.bridge.startRun({
      runId,
      client: context.client,
      maxCalls: this.deps.settings?.maxCallsPerRun,
      signal: calls.signal,
    });
    this.deps.runEvents?.runStarted?.({ runId, client: context.client, code: input.code });
    try {
      const result = await this.deps.sandbox.run(
        {
          code: input.code,
          stdin: input.stdin,
          deadlineSeconds: input.timeout_s,
          tools: catalog.tools.map((tool) => ({ name: tool.pyName, stub: tool.stub })),
        },
        { onCall: (tool, args) => calls_.call(tool, args), signal: context.signal },
      );
      this.deps.runEvents?.runFinished?.({ runId, client: context.client, result });
      return result;
    } finally {
      // Calls still in flight when the run ended are given up at once.
      calls.abort();
    }
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}

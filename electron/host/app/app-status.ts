// What the app says about itself (version, where it listens, whether it runs code, what went
// wrong at start) and the pause switch; told again on "app.changed" whenever any of it moves.
// Also the sandboxes' live counts (ready, starting, running), told on "sandbox.pool" when they
// move: looked at on a timer rather than from inside the pool, whose changes come from many
// places (starts, ready lines, takes, shrinks, restocks) and whose counts are only ever read.
import type { AppInfoView, SandboxPoolView } from "../../../shared/api/api-views.js";
import type { ShimLaunch } from "../api/clients/client-snippets.js";
import type { ServerPath } from "../servers/server-path.js";
import type { SandboxSupervisor } from "../sandbox/sandbox-supervisor.js";
import type { EventHub } from "../api/event-hub.js";
import type { RunGate } from "./run-gate.js";

/** The sandboxes' counts (ready, starting, running) are looked at this often for the UI. */
export const POOL_VIEW_SAMPLE_MS = 500;

export interface AppStatusSources {
  version: string;
  dataDir: string;
  shimLaunch: ShimLaunch;
  /** The PATH wrapped servers start with, resolved once at start. */
  serverPath: ServerPath;
  /** Problems found at start: kept and shown until the app restarts. */
  startupProblems: readonly string[];
  socket: { readonly socketPath: string | undefined };
  http: { readonly url: string | null };
  gate: RunGate;
  audit: { readonly failure: string | null };
  engine: { readonly lastCatalogError: string | null };
  sandbox: Pick<SandboxSupervisor, "dockerView" | "runtimeProblem" | "poolCounts">;
  events: EventHub;
  /** How often the pool's counts are looked at (POOL_VIEW_SAMPLE_MS unless said). */
  poolSampleMs?: number;
}

export class AppStatus {
  private lastPool = "";
  private readonly poolTimer: NodeJS.Timeout;

  constructor(private readonly sources: AppStatusSources) {
    this.poolTimer = setInterval(
      () => this.samplePool(),
      sources.poolSampleMs ?? POOL_VIEW_SAMPLE_MS,
    );
    // A status nobody looks at keeps no process alive.
    this.poolTimer.unref();
  }

  /** The sandboxes right now. */
  pool(): SandboxPoolView {
    const counts = this.sources.sandbox.poolCounts ?? { ready: 0, starting: 0, target: 0 };
    const { gate } = this.sources;
    return { ...counts, running: gate.active, queued: gate.queued };
  }

  /** Tells "sandbox.pool" when the counts differ from the last ones told. */
  samplePool(): void {
    const view = this.pool();
    const key = JSON.stringify(view);
    if (key === this.lastPool) return;
    this.lastPool = key;
    this.sources.events.emit("sandbox.pool", view);
  }

  /** Stops looking at the pool (the app is stopping). */
  stopWatching(): void {
    clearInterval(this.poolTimer);
  }

  info(): AppInfoView {
    const { version, dataDir, shimLaunch, socket, http, gate, audit, engine } = this.sources;
    return {
      version,
      dataDir,
      socketPath: socket.socketPath ?? "",
      httpUrl: http.url,
      paused: gate.paused,
      startupProblems: [
        ...this.sources.startupProblems,
        ...(audit.failure
          ? [`The audit log cannot be written, so runs are refused: ${audit.failure}`]
          : []),
        ...(this.sources.sandbox.runtimeProblem !== null
          ? [this.sources.sandbox.runtimeProblem]
          : []),
      ],
      catalogError: engine.lastCatalogError,
      shimCommand: shimLaunch,
      serverPath: this.sources.serverPath,
      docker: this.sources.sandbox.dockerView(),
    };
  }

  setPaused(paused: boolean): void {
    this.sources.gate.paused = paused;
    this.changed();
  }

  /** Tells every face of the app what it now says. */
  changed(): void {
    this.sources.events.emit("app.changed", this.info());
  }
}

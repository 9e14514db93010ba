// What the app says about itself (version, where it listens, whether it runs code, what went
// wrong at start) and the pause switch; told again on "app.changed" whenever any of it moves.
import type { AppInfoView } from "../../../shared/api/api-views.js";
import type { ShimLaunch } from "../api/clients/client-snippets.js";
import type { ServerPath } from "../servers/server-path.js";
import type { SandboxSupervisor } from "../sandbox/sandbox-supervisor.js";
import type { EventHub } from "../api/event-hub.js";
import type { RunGate } from "./run-gate.js";

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
  sandbox: Pick<SandboxSupervisor, "dockerView" | "runtimeProblem">;
  events: EventHub;
}

export class AppStatus {
  constructor(private readonly sources: AppStatusSources) {}

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

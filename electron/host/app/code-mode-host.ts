import type { ApiHandlers } from "../../../shared/api/api-contract.js";
import type { ServerView, TaintView } from "../../../shared/api/api-views.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { API_LIMITS } from "../../../shared/limits.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { ApprovalService } from "../core/approvals/approval-service.js";
import { buildApiHandlers } from "../api/handlers/api-handlers.js";
import { configHidesArgs } from "../audit/args-policy.js";
import { tryServices, type TryServices } from "../api/handlers/try-handlers.js";
import { pageOf, serverPage } from "../api/handlers/list-page.js";
import { configSecrets } from "../core/secrets/secret-mask.js";
import { TaintRegistry } from "../core/bridge/taint.js";
import { findDocker } from "../sandbox/container-engine/docker-status.js";
import type { CodeModeEngine } from "../core/engine/code-mode-engine.js";
import { runEngineBuilder } from "./run-engine.js";
import type { McpHttpServer } from "../ingress/http/mcp-http-server.js";
import type { InstanceLock } from "../ingress/local-access/instance-lock.js";
import { LocalSocketListener } from "../ingress/local-access/socket-listener.js";
import { listenForClients } from "../ingress/mcp/socket-clients.js";
import { sandboxImageDir } from "../util/paths.js";
import { readContext } from "../sandbox/image.js";
import type { ConfigStore } from "../servers/config/config-store.js";
import type { ServersConfig } from "../core/ports/server-config-types.js";
import { pruneBundles } from "../servers/mcpb/bundle-store.js";
import type { ServerPath } from "../servers/server-path.js";
import type { ServerSet } from "../servers/server-set.js";
import type { Settings } from "../servers/settings/settings.js";
import { AppStatus } from "./app-status.js";
import { AuditRecorder } from "../audit/audit-recorder.js";
import { RunImageCache } from "../audit/run-image-cache.js";
import { catalogInput } from "../servers/catalog-input.js";
import { ClientSessions } from "../ingress/mcp/client-sessions.js";
import { DockerOutages } from "../audit/flood/docker-outages.js";
import { EventHub } from "../api/event-hub.js";
import { HostAudit } from "../audit/host-audit.js";
import type { HostOptions } from "./host-options.js";
import { HostRuns } from "./host-runs.js";
import { hostWorkspaces, type HostWorkspaces } from "./host-workspaces.js";
import { McpHttpService } from "../ingress/http/mcp-http-service.js";
import { openHost, type OpenedDataDir } from "./open-host.js";
import { RunGate } from "./run-gate.js";
import { wirePins } from "./pin-events.js";
import { forwardHostEvents } from "./host-events.js";
import { ClientEntryRecorder } from "../audit/flood/client-entry-recorder.js";
import type { ToolPins } from "../servers/pins/tool-pins.js";
import { SandboxSupervisor } from "../sandbox/sandbox-supervisor.js";
import { serverViews, taintViews } from "../api/server-views.js";
import { hostSettingsApplier, sandboxSettings } from "./host-settings.js";
import { engineSettings, type SettingsApplier } from "./settings-applier.js";
import { DOCKER_POLL_MS, AUDIT_PROBE_MS, startupWaitLeft } from "./host-options.js";
import { waitAtMost } from "../util/wait-at-most.js";

/**
 * The process every face of Code Mode shares: the Electron main process, `codemode daemon`
 * and the tests each start one. It is the composition root: it builds the services in order,
 * each from the ones before it, wires their events, and holds no domain logic of its own.
 */
export class CodeModeHost {
  readonly events = new EventHub();
  readonly taint = new TaintRegistry();
  readonly audit: AuditLog;
  readonly hostAudit: HostAudit;
  readonly servers: ServerSet;
  readonly configStore: ConfigStore;
  readonly sandbox: SandboxSupervisor;
  readonly gate: RunGate;
  readonly engine: CodeModeEngine;
  /** "Ask first" calls waiting for the user. */
  readonly approvals: ApprovalService;
  readonly sessions: ClientSessions;
  readonly listener = new LocalSocketListener();
  readonly http: McpHttpService;
  readonly status: AppStatus;
  readonly settingsApplier: SettingsApplier;
  readonly api: ApiHandlers;
  /** Try it, whichever face asks (the browser UI's tries are logged as the browser's). */
  readonly tries: TryServices;
  /** Problems found at start, shown until the app restarts. */
  readonly startupProblems: string[];
  readonly serverPath: ServerPath;
  /** Bundle folders being installed, not yet named by a saved server: prune leaves them. */
  readonly pendingBundles = new Set<string>();
  readonly outages: DockerOutages;
  /** Pinned tool definitions; changed and new ones are held out of the catalog for review. */
  readonly pins: ToolPins;
  /** The clients' named workspaces, their containers' slots, and the files runs attach. */
  readonly workspaces: HostWorkspaces;
  private readonly lock: InstanceLock;
  private dockerTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private readonly clientLog: ClientEntryRecorder;

  private constructor(
    readonly options: HostOptions,
    opened: OpenedDataDir,
  ) {
    const { events, taint } = this;
    const servers = (this.servers = opened.servers);
    const configStore = (this.configStore = opened.configStore);
    const log = options.log;
    const { settings } = opened.state;
    this.lock = opened.lock;
    this.startupProblems = [...opened.state.problems];
    this.serverPath = opened.serverPath;
    this.audit = opened.audit;
    const hostAudit = (this.hostAudit = new HostAudit(opened.audit, {
      log,
      probeMs: options.auditProbeMs ?? AUDIT_PROBE_MS,
    }));
    const record = (entry: AuditEntryInput) => hostAudit.record(entry);
    const now = () => options.now?.() ?? new Date();
    const outages = (this.outages = new DockerOutages(record, log, now));
    const engineBuilder = runEngineBuilder();
    const current = () => this.settingsApplier.current;
    const workspaces = (this.workspaces = hostWorkspaces(options.dataDir, current, record, log));
    const sandbox = (this.sandbox = new SandboxSupervisor({
      findDocker: options.findDocker ?? ((preference) => findDocker({ preference })),
      files: readContext(options.contextDir ?? sandboxImageDir()),
      owner: opened.owner,
      ...sandboxSettings(settings),
      stagedTools: engineBuilder.stagedTools,
      slots: workspaces.slots,
      onDockerChange: (view) => events.emit("docker.changed", view),
      onOutage: (event) => outages.changed(event),
      onBuildEvent: (event) => events.emit("image.build", event),
      onBuildFinished: (result) => {
        const { tag, ok, error, durationMs } = result;
        record({ kind: "image_build", tag, ok, error, durationMs });
        events.emit("image.build", { kind: "finished", ...result });
      },
    }));
    // The saved config, read at each use: a policy changed in the UI applies to the next call.
    const secrets = () => configSecrets(configStore.current);
    const hides = (server: string, tool: string) =>
      configHidesArgs(configStore.current, server, tool);
    const recorder = new AuditRecorder(record, secrets, {
      hidesArgs: hides,
      logFailure: () => hostAudit.failure,
    });
    const runImages = new RunImageCache();
    const gate = (this.gate = new RunGate(settings.maxConcurrentRuns));
    const { engine, approvals } = engineBuilder.build({
      servers,
      sandbox,
      taint,
      events: recorder,
      // The log gets each image's hash and size; the cache its bytes, for the Audit page.
      runEvents: {
        runStarted: (run) => recorder.runStarted(run, sandbox.dockerView()),
        runFinished: (run) => {
          recorder.runFinished(run);
          runImages.addOutput(run.runId, run.result, secrets());
        },
        runImage: ({ runId, image }) => runImages.add(runId, image),
        workspaceKeepDiffered: (run) => record({ kind: "workspace_keep_differed", ...run }),
      },
      // Names do not change when a server is added: always server__tool in the app.
      prefixWithServer: true,
      settings: engineSettings(settings),
      tolerateCatalogErrors: true,
      serverTools: () => catalogInput(servers, configStore.current, opened.pins),
      ...{ workspaces: workspaces.store, attachments: workspaces.attachments },
      approvals: {
        config: () => configStore.current,
        hidesArgs: hides,
        record,
        changed: (views) => events.emit("approvals.changed", views),
        timeoutSeconds: settings.approvalTimeoutSeconds,
      },
    });
    this.engine = engine;
    this.approvals = approvals;
    // A run whose entries reached their cap is stopped; its later calls are only counted.
    recorder.onOverCap((runId) => engine.stopRun(runId, "audit_limit"));
    // A client can connect and leave in a loop: connections are logged one by one up to a bound.
    const clientLog = (this.clientLog = new ClientEntryRecorder(record));
    const sessions = (this.sessions = new ClientSessions(
      new HostRuns(engine, gate, hostAudit, sandbox, outages),
      options.version,
      {
        connected: (view) => clientLog.connected(view),
        disconnected: (view) => clientLog.disconnected(view),
        cutOff: (view, unreadBytes) => clientLog.cutOff(view, unreadBytes),
        // The first page only: thousands of connected clients must not make one huge message.
        changed: (views) =>
          events.emit("clients.changed", pageOf(views, API_LIMITS.clientsPageMaxLimit)),
      },
      now,
      workspaces.readAttachment,
    ));
    const { dataDir, version, shimLaunch } = options;
    const token = opened.token;
    const http = (this.http = new McpHttpService({ sessions, token, dataDir, record, log }));
    const status = (this.status = new AppStatus({
      ...{ version, dataDir, shimLaunch, serverPath: opened.serverPath },
      ...{ startupProblems: this.startupProblems, socket: this.listener, http, gate },
      ...{ audit: hostAudit, engine, sandbox, events },
    }));
    this.settingsApplier = hostSettingsApplier({
      saved: { settings, chosen: opened.state.chosenSettings },
      dataDir: options.dataDir,
      subsystems: { http, gate, sandbox, audit: opened.audit, engine, approvals },
      record,
      events,
    });

    // Before applyConfig: a saved config first moves renamed servers' pins, drops removed ones'.
    const pins = (this.pins = opened.pins);
    wirePins(pins, configStore, {
      record,
      log,
      changed: () => {
        engine.rebuild();
        this.emitServers();
      },
    });
    configStore.onApply((next, summary) => this.applyConfig(next, summary));
    const serversChanged = () => this.emitServers();
    const audit = opened.audit;
    forwardHostEvents({
      events,
      taint,
      record,
      log,
      engine,
      status,
      servers,
      hostAudit,
      audit,
      serversChanged,
    });
    const { pendingBundles, serverPath } = this;
    const bundles = { configStore, dataDir: options.dataDir, serverPath, pendingBundles };
    this.tries = tryServices(bundles, hostAudit);
    this.api = buildApiHandlers({
      status,
      engine,
      sandbox,
      config: { configStore, servers, engine, serverViews: () => this.serverViews() },
      sessions,
      shimLaunch: options.shimLaunch,
      mcpHttp: () => http.server,
      bundles: { ...bundles, serverViews: () => this.serverViews() },
      taint: { taint, taintViews: () => this.taintViews() },
      settings: this.settingsApplier,
      audit: opened.audit,
      runImages,
      try: this.tries,
      approvals,
      pins,
      workspaces: { ...workspaces, record },
      claudeDesktopConfigPath: options.claudeDesktopConfigPath,
    });
  }

  static async start(options: HostOptions): Promise<CodeModeHost> {
    const startedAt = performance.now();
    const opened = await openHost(options);
    let host: CodeModeHost | null = null;
    try {
      host = new CodeModeHost(options, opened);
      await host.begin(opened.state.config, opened.state.settings, startedAt);
      return host;
    } catch (error) {
      if (host) await host.stop();
      else await opened.lock.release();
      throw error;
    }
  }

  /** Puts the built services to work: Docker looked for, servers started, socket and HTTP up. */
  private async begin(config: ServersConfig, settings: Settings, startedAt: number): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    // Docker's look and the servers side by side, for what the login shell left of the start's
    // wait: a late server joins the catalog when ready, a run before Docker answered waits.
    const left = startupWaitLeft(startedAt);
    const look = this.sandbox.refresh().catch((e: unknown) => log(`docker: ${String(e)}`));
    await Promise.all([
      waitAtMost(look, left),
      this.servers.replace(config, {
        onStartFailed: (failure) => log(`server ${failure.server} did not start: ${failure.error}`),
        startWaitMs: left,
      }),
    ]);
    const { dataDir, env, uiLink } = this.options;
    const record = (entry: AuditEntryInput) => this.record(entry);
    await listenForClients(this.listener, this.sessions, {
      ...{ dataDir, env, uiLink, record, log: this.options.log },
      instanceLock: this.lock,
    });
    await this.http
      .apply(settings)
      .catch((error: unknown) =>
        this.startupProblems.push(`MCP over HTTP did not start: ${String(error)}`),
      );
    this.watchDocker();
    await this.workspaces.start();
    // `codemode servers accept` edits the pin file while the app runs: take its reviews.
    this.pins.watch();
    // The host is up: the audit index catches up with the log now, in the background, rather
    // than on the first Audit page (slow after an upgrade or a crash left it missing or stale).
    this.audit.index.buildInBackground();
    for (const problem of this.startupProblems) log(problem);
  }

  private watchDocker(): void {
    const every = this.options.dockerPollMs ?? DOCKER_POLL_MS;
    this.dockerTimer = setInterval(() => {
      if (this.sandbox.dockerView().state !== "ready")
        void this.sandbox.refresh().catch(() => undefined);
    }, every);
    this.dockerTimer.unref();
  }

  /** Puts a saved config to work; clients stay connected. */
  private async applyConfig(config: ServersConfig, summary: string): Promise<void> {
    // Labels and allowlists apply now; servers whose command changed follow as they restart.
    this.engine.rebuild();
    // Saving does not wait for added or changed servers to start: their status shows it.
    await this.servers.replace(config, {
      onStartFailed: (failure) =>
        this.options.log?.(`server ${failure.server} did not start: ${failure.error}`),
    });
    this.record({ kind: "config_changed", summary, servers: [...config.servers.keys()] });
    // A removed bundle server's folder goes with it (its process was stopped just above).
    await pruneBundles(this.options.dataDir, config, this.pendingBundles).catch((error: unknown) =>
      this.options.log?.(`bundle folders could not be cleaned up: ${String(error)}`),
    );
    this.emitServers();
  }

  private emitServers(): void {
    // The first page, as servers.list gives it: the UI asks for further pages itself.
    this.events.emit("servers.changed", serverPage(this.serverViews()));
  }

  // Views and shortcuts the faces of the app (tray, tests) read; each delegates to a service.

  get config(): ServersConfig {
    return this.configStore.current;
  }

  record(entry: AuditEntryInput): void {
    this.hostAudit.record(entry);
  }

  /** Resolves when every entry recorded so far is durable (appends are group-committed). */
  auditDurable(): Promise<void> {
    return this.hostAudit.durable();
  }

  serverViews(): ServerView[] {
    return serverViews(this.servers, this.config, (name) => this.pins.heldCount(name));
  }

  /** The clients held to private tools. */
  taintViews(): TaintView[] {
    return taintViews(this.taint);
  }

  /** The MCP-over-HTTP server while it is on (tests reach its idle sweep through it). */
  get mcpHttp(): McpHttpServer | null {
    return this.http.server;
  }

  get httpUrl(): string | null {
    return this.http.url;
  }

  get socketPath(): string {
    return this.listener.socketPath ?? "";
  }

  /** Shuts down cleanly: runs cancelled, containers removed, servers closed, socket removed. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.dockerTimer) clearInterval(this.dockerTimer);
      this.status.stopWatching();
      // Told at once, not when the log closes: the build lets go of the disk while we stop.
      void this.audit.index.stopBuilding();
      this.hostAudit.stop();
      await this.listener.close().catch(() => undefined);
      await this.http.close().catch(() => undefined);
      // Questions still waiting are withdrawn: those calls do not go out.
      this.approvals.close();
      await this.sessions.closeAll();
      // Connections left out of the log since the last one logged are on the record too.
      this.clientLog.flush();
      // Refusals left out of the log since the last count: nothing can knock any more.
      this.hostAudit.flushRefusals();
      this.engine.close();
      await Promise.allSettled([this.sandbox.close(), this.servers.close(), this.tries.close()]);
      await this.workspaces.stop();
      // Runs refused while Docker is still away are on the record too.
      this.outages.flush();
      await this.pins.close().catch(() => undefined);
      await this.hostAudit.durable();
      await this.audit.close().catch(() => undefined);
      await this.lock.release();
    })();
    return this.stopping;
  }
}

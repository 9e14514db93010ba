import type { ApiHandlers } from "../../../shared/api/api-contract.js";
import type { ServerView } from "../../../shared/api/api-views.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { API_LIMITS, HOST_LIMITS, SERVER_LIMITS } from "../../../shared/limits.js";
import type { AuditLog } from "../audit/audit-log.js";
import { ApprovalService } from "../approvals/approval-service.js";
import { configAsksFirst } from "../approvals/ask-policy.js";
import { buildApiHandlers } from "../api/api-handlers.js";
import { tryServices, type TryServices } from "../api/handlers/try-handlers.js";
import { pageOf, serverPage } from "../api/handlers/list-page.js";
import { configSecrets } from "../bridge/secret-mask.js";
import { TaintRegistry } from "../bridge/taint.js";
import { findDocker } from "../docker/docker-status.js";
import { CodeModeEngine } from "../engine/code-mode-engine.js";
import type { McpHttpServer } from "../http-transport/mcp-http-server.js";
import type { InstanceLock } from "../local-access/instance-lock.js";
import { LocalSocketListener } from "../local-access/socket-listener.js";
import { sandboxImageDir } from "../paths.js";
import { readContext } from "../sandbox/image.js";
import type { ConfigStore } from "../servers/config-store.js";
import type { ServersConfig } from "../servers/server-config-types.js";
import { pruneBundles } from "../servers/mcpb/bundle-store.js";
import type { ServerPath } from "../servers/server-path.js";
import type { ServerSet } from "../servers/server-set.js";
import type { Settings } from "../settings/settings.js";
import { AppStatus } from "./app-status.js";
import { AuditRecorder } from "./audit-recorder.js";
import { RunImageCache } from "./run-image-cache.js";
import { catalogInput } from "./catalog-input.js";
import { ClientSessions } from "./client-sessions.js";
import { DockerOutages } from "./docker-outages.js";
import { EventHub } from "./event-hub.js";
import { HostAudit } from "./host-audit.js";
import type { HostOptions } from "./host-options.js";
import { HostRuns } from "./host-runs.js";
import { HttpSwitch } from "./http-switch.js";
import { openHost, type Opened } from "./open-host.js";
import { RunGate } from "./run-gate.js";
import { wirePins } from "./pin-events.js";
import { ClientAuditLog } from "./client-entry-limiter.js";
import type { ToolPins } from "../pins/tool-pins.js";
import { SandboxSlot } from "./sandbox-slot.js";
import { serverViews, taintViews } from "./server-views.js";
import { hostSettingsApplier, sandboxSettings } from "./host-settings.js";
import { engineSettings, type SettingsApplier } from "./settings-applier.js";

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
  readonly sandbox: SandboxSlot;
  readonly gate: RunGate;
  readonly engine: CodeModeEngine;
  /** "Ask first" calls waiting for the user. */
  readonly approvals: ApprovalService;
  readonly sessions: ClientSessions;
  readonly listener = new LocalSocketListener();
  readonly http: HttpSwitch;
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
  private readonly lock: InstanceLock;
  private dockerTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private readonly clientLog: ClientAuditLog;

  private constructor(
    readonly options: HostOptions,
    opened: Opened,
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
      probeMs: options.auditProbeMs ?? HOST_LIMITS.auditProbeMs,
    }));
    const record = (entry: AuditEntryInput) => hostAudit.record(entry);
    const now = () => options.now?.() ?? new Date();
    const outages = (this.outages = new DockerOutages(record, log, now));
    // Made below, once the sandbox it runs in is: warm containers are staged only after.
    let catalogSource: CodeModeEngine | null = null;
    const sandbox = (this.sandbox = new SandboxSlot({
      findDocker: options.findDocker ?? ((preference) => findDocker({ preference })),
      files: readContext(options.contextDir ?? sandboxImageDir()),
      owner: opened.owner,
      ...sandboxSettings(settings),
      stagedTools: () => catalogSource?.stagedTools() ?? null,
      onDockerChange: (view) => events.emit("docker.changed", view),
      onOutage: (event) => outages.changed(event),
      onBuildEvent: (event) => events.emit("image.build", event),
      onBuildFinished: (result) => {
        const { tag, ok, error, durationMs } = result;
        record({ kind: "image_build", tag, ok, error, durationMs });
        events.emit("image.build", { kind: "finished", ...result });
      },
    }));
    const recorder = new AuditRecorder(record, () => configSecrets(configStore.current));
    const runImages = new RunImageCache();
    const approvals = (this.approvals = new ApprovalService({
      // The saved config, read at each call: a policy changed in the UI applies to the next call.
      asksFirst: (server, tool) => configAsksFirst(configStore.current, server, tool),
      record,
      changed: (views) => events.emit("approvals.changed", views),
      secrets: () => configSecrets(configStore.current),
      timeoutSeconds: settings.approvalTimeoutSeconds,
    }));
    const gate = (this.gate = new RunGate(settings.maxConcurrentRuns));
    const engine = (this.engine = new CodeModeEngine({
      servers,
      sandbox,
      taint,
      events: recorder,
      // The log gets each image's hash and size; the cache its bytes, for the Audit page.
      runEvents: {
        runStarted: (run) => recorder.runStarted(run, sandbox.dockerView()),
        runFinished: (run) => recorder.runFinished(run),
        runImage: ({ runId, image }) => runImages.add(runId, image),
      },
      // Names do not change when a server is added: always server__tool in the app.
      prefixWithServer: true,
      settings: engineSettings(settings),
      tolerateCatalogErrors: true,
      serverTools: () => catalogInput(servers, configStore.current, opened.pins),
      approvals,
    }));
    catalogSource = engine;
    // Warm containers already idle get the catalog now, and each change after.
    sandbox.catalogChanged();
    engine.onCatalogChange(() => sandbox.catalogChanged());
    // A run whose entries reached their cap is stopped; its later calls are only counted.
    recorder.onOverCap((runId) => engine.stopRun(runId, "audit_limit"));
    // A client can connect and leave in a loop: connections are logged one by one up to a bound.
    const clientLog = (this.clientLog = new ClientAuditLog(record));
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
    ));
    const http = (this.http = new HttpSwitch({
      sessions,
      token: opened.token,
      dataDir: options.dataDir,
      record,
      log,
    }));
    const status = (this.status = new AppStatus({
      version: options.version,
      dataDir: options.dataDir,
      shimLaunch: options.shimLaunch,
      serverPath: opened.serverPath,
      startupProblems: this.startupProblems,
      socket: this.listener,
      http,
      gate,
      audit: hostAudit,
      engine,
      sandbox,
      events,
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
    hostAudit.onHealthChange(() => status.changed());
    // app.info carries Docker's state too.
    events.on("docker.changed", () => status.changed());
    taint.onChange((change) => {
      if (change.type === "reset") {
        record({
          kind: "taint_reset",
          client: change.client,
          previousTool: change.previous.pyName,
        });
      }
      events.emit("taint.changed", pageOf(taintViews(taint), API_LIMITS.taintPageMaxLimit));
    });
    engine.onCatalogError((message) => {
      log?.(
        `the tools of a server changed but cannot be used: ${message}; keeping the previous tools`,
      );
      status.changed();
    });
    servers.on("status", () => this.emitServers());
    servers.on("tools", () => this.emitServers());
    opened.audit.subscribe((entry) => events.emit("audit.entry", entry));
    opened.audit.onVerifyProgress((progress) => events.emit("audit.verify", progress));
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
      taint: { taint, taintViews: () => taintViews(taint) },
      settings: this.settingsApplier,
      audit: opened.audit,
      runImages,
      try: this.tries,
      approvals,
      pins,
      claudeDesktopConfigPath: options.claudeDesktopConfigPath,
    });
  }

  static async start(options: HostOptions): Promise<CodeModeHost> {
    const opened = await openHost(options);
    let host: CodeModeHost | null = null;
    try {
      host = new CodeModeHost(options, opened);
      await host.begin(opened.state.config, opened.state.settings);
      return host;
    } catch (error) {
      if (host) await host.stop();
      else await opened.lock.release();
      throw error;
    }
  }

  /** Puts the built services to work: Docker looked for, servers started, socket and HTTP up. */
  private async begin(config: ServersConfig, settings: Settings): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    // Clients are taken once every server is up, or after SERVER_LIMITS.startupWaitMs (a late
    // one joins the catalog when ready). Docker is looked for meanwhile, not first: a shim that
    // starts the app waits shimStartWaitMs in all, and a mute engine takes versionTimeoutMs.
    await Promise.all([
      this.sandbox.refresh().catch((error: unknown) => log(`docker: ${String(error)}`)),
      this.servers.replace(config, {
        onStartFailed: (failure) => log(`server ${failure.server} did not start: ${failure.error}`),
        startWaitMs: SERVER_LIMITS.startupWaitMs,
      }),
    ]);
    await this.listen();
    await this.http
      .apply(settings)
      .catch((error: unknown) =>
        this.startupProblems.push(`MCP over HTTP did not start: ${String(error)}`),
      );
    this.watchDocker();
    // `codemode servers accept` edits the pin file while the app runs: take its reviews.
    this.pins.watch();
    // The host is up: the audit index catches up with the log now, in the background, rather
    // than on the first Audit page (slow after an upgrade or a crash left it missing or stale).
    this.audit.index.buildInBackground();
    for (const problem of this.startupProblems) log(problem);
  }

  private async listen(): Promise<void> {
    const log = this.options.log;
    await this.listener.listen({
      dataDir: this.options.dataDir,
      env: this.options.env,
      instanceLock: this.lock,
      uiLink: this.options.uiLink,
      onConnection: (socket) => {
        void this.sessions.attachSocket(socket).catch((error: unknown) => {
          log?.(`connection failed: ${String(error)}`);
          socket.destroy();
        });
      },
      onRefused: (refusal) => {
        log?.(`refused a socket connection: ${refusal.message}`);
        this.record({ kind: "auth_refused", reason: refusal.message, transport: "socket" });
      },
      onError: (error) => log?.(`socket: ${error.message}`),
    });
  }

  private watchDocker(): void {
    const every = this.options.dockerPollMs ?? HOST_LIMITS.dockerPollMs;
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

import { BUNDLES_DIR, pruneBundles } from "../servers/mcpb/bundle-store.js";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { ApiHandlers } from "../../../shared/api/api-contract.js";
import type { AppInfoView, ServerView } from "../../../shared/api/api-views.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../shared/limits.js";
import {
  CHECKPOINT_FILE,
  SET_ASIDE_SUFFIX,
  type CheckpointSigner,
} from "../audit/audit-checkpoint.js";
import { findAbandonedRuns } from "../audit/abandoned-runs.js";
import { AuditLog } from "../audit/audit-log.js";
import { TaintRegistry } from "../bridge/taint.js";
import { findDocker, type DockerStatus } from "../docker/docker-status.js";
import {
  CodeModeEngine,
  type RunContext,
  type RunPythonInput,
} from "../engine/code-mode-engine.js";
import { acquireInstanceLock, type InstanceLock } from "../local-access/instance-lock.js";
import { LocalSocketListener } from "../local-access/socket-listener.js";
import { ensureToken } from "../local-access/token.js";
import { checkDataDirTrust } from "../local-access/data-dir-trust.js";
import { LOCAL_ACCESS_NAMES } from "../local-access/local-access-constants.js";
import type { RunPythonService } from "../mcp/run-python-server.js";
import { RunNotStarted } from "../engine/run-not-started.js";
import { sandboxImageDir } from "../paths.js";
import { currentOwner } from "../sandbox/container-owner.js";
import { ensureInstallId, INSTALL_ID_FILE } from "../sandbox/install-id.js";
import { readContext } from "../sandbox/image.js";
import { ConfigStore, loadServersConfig, SERVERS_FILE } from "../servers/config-store.js";
import type { ServersConfig } from "../servers/server-config-types.js";
import { ServerSet } from "../servers/server-set.js";
import { resolveServerPath, type ServerPath } from "../servers/server-path.js";
import { sameLaunch } from "../servers/wrapped-server.js";
import {
  applySettingsPatch,
  DEFAULT_SETTINGS,
  parseSettingsFile,
  type Settings,
} from "../settings/settings.js";
import { loadFile, writeFileAtomic } from "../store/atomic-file.js";
import type { SecretCodec } from "../store/secret-codec.js";
import { CHECKPOINT_KEY_FILE } from "../../secrets/checkpoint-key.js";
import { buildApiHandlers } from "../api/api-handlers.js";
import { McpHttpServer } from "../http-transport/mcp-http-server.js";
import { ApiFailure } from "../api/api-failure.js";
import type { ShimLaunch } from "../clients/client-snippets.js";
import { SerialQueue } from "../util/serial-queue.js";
import { AuditHealth } from "./audit-health.js";
import { AuditRecorder } from "./audit-recorder.js";
import { RefusalLimiter } from "./refusal-limiter.js";
import { ClientSessions } from "./client-sessions.js";
import { EventHub } from "./event-hub.js";
import { RunGate } from "./run-gate.js";
import { RunRefusals } from "./run-refusals.js";
import { SandboxSlot, type DockerOutageEvent } from "./sandbox-slot.js";
import { configSecrets, serverViews } from "./server-views.js";

export { SERVERS_FILE };
export const SETTINGS_FILE = "settings.json";
/** What the host reads from its data directory and acts on: each must be the user's own. */
export const DATA_DIR_TRUSTED_ENTRIES = [
  SERVERS_FILE,
  SETTINGS_FILE,
  LOCAL_ACCESS_NAMES.tokenFile,
  LOCAL_ACCESS_NAMES.lockFile,
  LOCAL_ACCESS_NAMES.socketDir,
  INSTALL_ID_FILE,
  "audit",
  // Unpacked MCP Bundles: their code runs as servers.
  BUNDLES_DIR,
  // The audit log's head kept outside it, the key that signs it, and the checkpoints set aside.
  CHECKPOINT_FILE,
  CHECKPOINT_KEY_FILE,
  `*${SET_ASIDE_SUFFIX}`,
] as const;

export interface HostOptions {
  dataDir: string;
  version: string;
  /** How MCP clients start the shim of this install (differs for the packaged app). */
  shimLaunch: ShimLaunch;
  findDocker?: () => Promise<DockerStatus>;
  /** The sandbox image's build context (sandbox-image/). */
  contextDir?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** How often to look for Docker again while it is not ready (default HOST_LIMITS.dockerPollMs). */
  dockerPollMs?: number;
  /** How often to try the audit log again while it cannot be written (default HOST_LIMITS.auditProbeMs). */
  auditProbeMs?: number;
  now?: () => Date;
  /** Keeps secret env values encrypted at rest (the app's OS keychain); absent: plain, 0600. */
  secretCodec?: SecretCodec;
  /** Where Claude Desktop's config is (tests point it at a temporary file). */
  claudeDesktopConfigPath?: () => string;
  /** Signs the audit checkpoint with a key in the OS keychain; absent: unsigned (daemon). */
  checkpointSigner?: CheckpointSigner;
  /** The checkpoint key file existed before this start: a missing checkpoint is then a problem. */
  checkpointExpected?: boolean;
  /** Why the existing checkpoint key file cannot be used: reported, and verify fails. */
  checkpointKeyProblem?: string | null;
  /** The PATH wrapped servers get (default: the login shell's, see server-path.ts). */
  resolveServerPath?: () => Promise<ServerPath>;
}

/**
 * The process every face of Code Mode shares: the Electron main process, `codemode daemon`
 * and the tests each create one. It owns the saved config and settings, the wrapped
 * servers, the sandbox, the audit log, the local socket and the client sessions, and
 * exposes the typed API the UI uses.
 */
export class CodeModeHost {
  readonly events = new EventHub();
  readonly taint = new TaintRegistry();
  readonly api: ApiHandlers;
  readonly gate: RunGate;
  readonly sessions: ClientSessions;
  readonly engine: CodeModeEngine;
  readonly configStore: ConfigStore;
  readonly startupProblems: string[] = [];
  /** Bundle folders being installed, not yet named by a saved server: prune leaves them. */
  readonly pendingBundles = new Set<string>();
  private listener: LocalSocketListener | null = null;
  private http: McpHttpServer | null = null;
  private token = "";
  private dockerTimer: NodeJS.Timeout | null = null;
  private auditProbeTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly options: HostOptions,
    private readonly lock: InstanceLock,
    readonly audit: AuditLog,
    readonly servers: ServerSet,
    readonly sandbox: SandboxSlot,
    public settings: Settings,
    config: ServersConfig,
    /** The PATH wrapped servers start with, resolved once at start. */
    readonly serverPath: ServerPath,
  ) {
    this.configStore = new ConfigStore(config, {
      file: path.join(options.dataDir, SERVERS_FILE),
      secretCodec: options.secretCodec,
      catalogInput: (next) => this.catalogInput(next),
      listedTools: (server) => (servers.get(server)?.tools ?? []).map((t) => t.name),
      apply: (next, summary) => this.applyConfig(next, summary),
    });
    const recorder = new AuditRecorder(
      (entry) => this.record(entry),
      () => this.secrets(),
      // A run whose entries reached their cap is stopped; its later calls are only counted.
      { stopRun: (runId) => this.engine.stopRun(runId, "audit_limit") },
    );
    this.gate = new RunGate(settings.maxConcurrentRuns);
    this.engine = new CodeModeEngine({
      servers,
      sandbox,
      taint: this.taint,
      events: recorder,
      runEvents: recorder,
      // Names do not change when a server is added: always server__tool in the app.
      prefixWithServer: true,
      settings: this.engineSettings(),
      tolerateCatalogErrors: true,
      serverTools: () => this.catalogInput(this.config),
    });
    const service: RunPythonService = {
      description: () => this.engine.description(),
      onCatalogChange: (listener) => this.engine.onCatalogChange(listener),
      run: (input, context) => this.run(input, context),
    };
    this.sessions = new ClientSessions(service, options.version, {
      connected: (view) =>
        this.record({
          kind: "client_connected",
          client: view.name,
          clientVersion: view.version || null,
          connectionId: view.connectionId,
        }),
      disconnected: (view) =>
        this.record({
          kind: "client_disconnected",
          client: view.name,
          clientVersion: view.version || null,
          connectionId: view.connectionId,
        }),
      changed: (views) => this.events.emit("clients.changed", views),
    });
    this.taint.onChange((change) => {
      if (change.type === "reset") {
        this.record({
          kind: "taint_reset",
          client: change.client,
          previousTool: change.previous.pyName,
        });
      }
      this.events.emit("taint.changed", this.taintViews());
    });
    this.engine.onCatalogError((message) => {
      options.log?.(
        `the tools of a server changed but cannot be used: ${message}; keeping the previous tools`,
      );
      this.events.emit("app.changed", this.appInfo());
    });
    servers.on("status", () => this.emitServers());
    servers.on("tools", () => this.emitServers());
    audit.subscribe((entry) => this.events.emit("audit.entry", entry));
    this.api = buildApiHandlers(this);
  }

  static async start(options: HostOptions): Promise<CodeModeHost> {
    const log = options.log ?? (() => undefined);
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    // Before anything in it is read or written: a directory another user can write is theirs.
    await checkDataDirTrust(options.dataDir, DATA_DIR_TRUSTED_ENTRIES);
    const lock = await acquireInstanceLock(options.dataDir);
    // The login shell takes a moment (nvm, conda): it runs while the rest loads.
    const serverPath = (
      options.resolveServerPath ?? (() => resolveServerPath({ env: options.env }))
    )();
    const problems: string[] = [];
    let host: CodeModeHost | null = null;
    try {
      const token = await ensureToken(options.dataDir);
      const settingsFile = await loadFile(
        path.join(options.dataDir, SETTINGS_FILE),
        parseSettingsFile,
        options.now,
      );
      let settings = DEFAULT_SETTINGS;
      if (settingsFile.state === "ok") settings = settingsFile.value;
      if (settingsFile.state === "invalid") {
        problems.push(
          `${settingsFile.problem}. It was kept as ${settingsFile.keptAs}; defaults are in use.`,
        );
      }
      const loaded = await loadServersConfig(
        path.join(options.dataDir, SERVERS_FILE),
        options.secretCodec,
        options.now,
      );
      const config = loaded.config;
      if (loaded.problem !== null) problems.push(loaded.problem);

      const audit = await AuditLog.open({
        dir: path.join(options.dataDir, "audit"),
        now: options.now,
        retentionDays: settings.auditRetentionDays,
        maxFileBytes: settings.auditMaxFileMiB * 1024 * 1024,
        maxTotalBytes: settings.auditMaxTotalMiB * 1024 * 1024,
        // Read live: a value marked secret a moment ago is scrubbed from the next entry.
        secrets: () => host?.secrets() ?? [],
        onError: (error) => log(`audit: ${String(error)}`),
        checkpoint: {
          file: path.join(options.dataDir, CHECKPOINT_FILE),
          signer: options.checkpointSigner ?? null,
          expected: options.checkpointExpected,
          keyProblem: options.checkpointKeyProblem,
        },
      });
      if (audit.recovery.checkpointProblem) problems.push(audit.recovery.checkpointProblem);
      if (audit.recovery.tornFile) {
        problems.push(
          `The audit log's last line was cut off by a crash; its ${audit.recovery.tornBytes} bytes were kept in ${audit.recovery.tornFile}.`,
        );
      }
      // Runs in flight when the app last stopped without a goodbye (a crash, a kill) kept a
      // run_started with no end: the log says what became of them before anything new starts.
      const abandoned = await findAbandonedRuns(path.join(options.dataDir, "audit")).catch(
        (error: unknown) => {
          log(`audit: could not look for abandoned runs: ${String(error)}`);
          return [];
        },
      );
      for (const entry of abandoned) {
        await audit.append(entry).catch((error: unknown) => log(`audit: ${String(error)}`));
      }
      if (abandoned.length > 0) {
        log(`audit: ${abandoned.length} run(s) in progress when the app stopped marked abandoned`);
      }

      const sandbox = new SandboxSlot({
        findDocker: options.findDocker ?? (() => findDocker()),
        files: readContext(options.contextDir ?? sandboxImageDir()),
        owner: currentOwner(await ensureInstallId(options.dataDir)),
        poolSize: () => (host?.settings ?? settings).warmPoolSize,
        deadlineSeconds: () => (host?.settings ?? settings).deadlineSeconds,
        onDockerChange: (view) => {
          host?.events.emit("docker.changed", view);
          if (host) host.events.emit("app.changed", host.appInfo());
        },
        onOutage: (event) => host?.dockerOutage(event),
        onBuildEvent: (event) => host?.events.emit("image.build", event),
        onBuildFinished: (result) => {
          host?.record({
            kind: "image_build",
            tag: result.tag,
            ok: result.ok,
            error: result.error,
            durationMs: result.durationMs,
          });
          host?.events.emit("image.build", { kind: "finished", ...result });
        },
      });
      const resolvedPath = await serverPath;
      if (resolvedPath.shellProblem !== null) {
        log(`servers get PATH without the login shell's: ${resolvedPath.shellProblem}`);
      }
      const servers = new ServerSet(
        { servers: new Map() },
        { serverOptions: { path: resolvedPath.path } },
      );
      host = new CodeModeHost(
        options,
        lock,
        audit,
        servers,
        sandbox,
        settings,
        config,
        resolvedPath,
      );
      host.startupProblems.push(...problems);
      host.token = token;

      await sandbox.refresh().catch((error: unknown) => log(`docker: ${String(error)}`));
      const replaced = await servers.replace(config);
      for (const failure of replaced.failed)
        log(`server ${failure.server} did not start: ${failure.error}`);
      await host.listen();
      await host
        .applyHttp()
        .catch((error: unknown) =>
          host?.startupProblems.push(`MCP over HTTP did not start: ${String(error)}`),
        );
      host.watchDocker();
      for (const problem of host.startupProblems) log(problem);
      return host;
    } catch (error) {
      if (host) await host.stop();
      else await lock.release();
      throw error;
    }
  }

  private async listen(): Promise<void> {
    const listener = new LocalSocketListener();
    await listener.listen({
      dataDir: this.options.dataDir,
      env: this.options.env,
      instanceLock: this.lock,
      onConnection: (socket) => {
        void this.sessions.attachSocket(socket).catch((error: unknown) => {
          this.options.log?.(`connection failed: ${String(error)}`);
          socket.destroy();
        });
      },
      onRefused: (refusal) => {
        this.options.log?.(`refused a socket connection: ${refusal.message}`);
        this.record({ kind: "auth_refused", reason: refusal.message, transport: "socket" });
      },
      onError: (error) => this.options.log?.(`socket: ${error.message}`),
    });
    this.listener = listener;
  }

  /** MCP over HTTP follows the settings: off by default, on 127.0.0.1 only when turned on. */
  private async applyHttp(settings: Settings = this.settings): Promise<void> {
    const want = settings.httpEnabled ? settings.httpPort : null;
    const current = this.http;
    if (current && want !== null && current.url.includes(`:${want}/`)) return;
    this.http = null;
    await current?.close();
    if (want === null) return;
    this.http = await McpHttpServer.start({
      sessions: this.sessions,
      port: want,
      token: this.token,
      log: this.options.log,
      onRefused: (reason) => this.record({ kind: "auth_refused", reason, transport: "http" }),
    });
    this.options.log?.(
      `MCP over HTTP at ${this.http.url} (bearer token: the token file in ${this.options.dataDir})`,
    );
  }

  /** The MCP-over-HTTP server while it is on (tests reach its idle sweep through it). */
  get mcpHttp(): McpHttpServer | null {
    return this.http;
  }

  get httpUrl(): string | null {
    return this.http?.url ?? null;
  }

  get socketPath(): string {
    return this.listener?.socketPath ?? "";
  }

  private watchDocker(): void {
    const every = this.options.dockerPollMs ?? HOST_LIMITS.dockerPollMs;
    this.dockerTimer = setInterval(() => {
      if (this.sandbox.dockerView().state !== "ready")
        void this.sandbox.refresh().catch(() => undefined);
    }, every);
    this.dockerTimer.unref();
  }

  /** Runs refused at once while Docker is away: one audit entry for all of them. */
  private readonly runRefusals = new RunRefusals(() => this.options.now?.() ?? new Date());

  /** Docker went away or came back: the log and the log lines say so. */
  dockerOutage(event: DockerOutageEvent): void {
    if (event.phase === "lost") {
      this.options.log?.(`docker: not reachable at ${event.endpoint} (${event.reason})`);
      this.record({ kind: "docker_lost", endpoint: event.endpoint, reason: event.reason });
      return;
    }
    const refused = this.runRefusals.take("docker_unreachable");
    if (refused) this.record(refused);
    this.record({
      kind: "docker_back",
      endpoint: event.endpoint,
      downMs: event.downMs,
      sweptContainers: event.sweptContainers,
      warmContainers: event.warmContainers,
    });
    this.options.log?.(
      `docker: back at ${event.endpoint} after ${event.downMs} ms; removed ${event.sweptContainers} leftover containers, started ${event.warmContainers} warm`,
    );
  }

  /** run_python for every client: the pause switch and the concurrency cap, then the engine. */
  private async run(input: RunPythonInput, context: RunContext) {
    // While Docker is away a run is refused at once, before it costs the log anything: a
    // client retrying in a loop is counted, not logged try by try.
    const away = this.sandbox.unreachable;
    if (away !== null) {
      this.runRefusals.add(context.client);
      throw new RunNotStarted(away);
    }
    // A log that failed may be writable again (space freed, permission back): try first.
    if (this.auditFailure !== null) await this.auditHealth.probe();
    if (this.auditFailure !== null) {
      // Every run must be on the record; without a log, no run.
      throw new RunNotStarted(
        `Code Mode is not running code: its audit log cannot be written (${this.auditFailure}). Open Code Mode to see why.`,
      );
    }
    const release = await this.gate.enter(context.signal);
    try {
      return await this.engine.run(input, context);
    } finally {
      release();
      // The client hears of a run (result or refusal) only once its entries are on disk:
      // nothing it was told about can be missing from the log after a crash.
      await this.auditDurable();
    }
  }

  private readonly pendingAudit = new Set<Promise<unknown>>();
  readonly auditHealth = new AuditHealth(
    (entry) => this.audit.append(entry),
    () => {
      this.events.emit("app.changed", this.appInfo());
      this.watchAuditHealth();
    },
  );

  /** Why runs are refused because the audit log cannot be written; null while it can. */
  get auditFailure(): string | null {
    return this.auditHealth.error;
  }

  /** While the log is failing, it is tried again on a timer too, not only when a run comes. */
  private watchAuditHealth(): void {
    if (this.auditFailure === null || this.stopping !== null) {
      if (this.auditProbeTimer) clearInterval(this.auditProbeTimer);
      this.auditProbeTimer = null;
      return;
    }
    this.auditProbeTimer ??= setInterval(
      () => void this.auditHealth.probe(),
      this.options.auditProbeMs ?? HOST_LIMITS.auditProbeMs,
    );
    this.auditProbeTimer.unref();
  }

  private readonly refusals = new RefusalLimiter();

  record(entry: AuditEntryInput): void {
    if (entry.kind === "auth_refused") {
      const admitted = this.refusals.admit(entry);
      if (admitted === null) return;
      entry = admitted;
    }
    const pending = this.audit.append(entry).catch((error: unknown) => {
      this.options.log?.(`audit append failed: ${String(error)}`);
      this.auditHealth.failed(error);
    });
    this.pendingAudit.add(pending);
    void pending.finally(() => this.pendingAudit.delete(pending));
  }

  /** Resolves when every entry recorded so far is durable (appends are group-committed). */
  async auditDurable(): Promise<void> {
    await Promise.allSettled([...this.pendingAudit]);
  }

  /** Values of env entries marked secret: scrubbed from every audit entry. */
  secrets(): string[] {
    return configSecrets(this.config);
  }

  engineSettings() {
    return {
      maxCallsPerRun: this.settings.maxCallsPerRun,
      descriptionBudgetChars: this.settings.descriptionBudgetChars,
      serverConcurrency: this.settings.serverConcurrency,
    };
  }

  taintViews() {
    return this.taint.list().map((record) => ({
      client: record.client,
      server: record.server,
      tool: record.tool,
      pyName: record.pyName,
      at: record.at.toISOString(),
    }));
  }

  serverViews(): ServerView[] {
    return serverViews(this.servers, this.config);
  }

  private emitServers(): void {
    this.events.emit("servers.changed", this.serverViews());
  }

  appInfo(): AppInfoView {
    return {
      version: this.options.version,
      dataDir: this.options.dataDir,
      socketPath: this.socketPath,
      httpUrl: this.httpUrl,
      paused: this.gate.paused,
      startupProblems: [
        ...this.startupProblems,
        ...(this.auditFailure
          ? [`The audit log cannot be written, so runs are refused: ${this.auditFailure}`]
          : []),
      ],
      catalogError: this.engine.lastCatalogError,
      shimCommand: this.options.shimLaunch,
      serverPath: this.serverPath,
      docker: this.sandbox.dockerView(),
    };
  }

  setPaused(paused: boolean): void {
    this.gate.paused = paused;
    this.events.emit("app.changed", this.appInfo());
  }

  /** The config as last saved. */
  get config(): ServersConfig {
    return this.configStore.current;
  }

  /** Puts a saved config to work; clients stay connected. */
  private async applyConfig(config: ServersConfig, summary: string): Promise<void> {
    // Labels and allowlists apply now; servers whose command changed follow as they restart.
    this.engine.rebuild();
    const result = await this.servers.replace(config);
    this.record({ kind: "config_changed", summary, servers: [...config.servers.keys()] });
    // A removed bundle server's folder goes with it (its process was stopped just above).
    await pruneBundles(this.options.dataDir, config, this.pendingBundles).catch((error: unknown) =>
      this.options.log?.(`bundle folders could not be cleaned up: ${String(error)}`),
    );
    for (const failure of result.failed)
      this.options.log?.(`server ${failure.server} did not start: ${failure.error}`);
    this.emitServers();
  }

  /**
   * The catalog's input: each server's listed tools under the config's policy. A server
   * whose command changes keeps no tools until its new process lists them.
   */
  private catalogInput(config: ServersConfig) {
    return [...config.servers].map(([name, entry]) => {
      const live = this.servers.get(name);
      const tools = live && sameLaunch(live.entry, entry) ? [...live.tools] : [];
      return { server: name, tools, allow: entry.allow, private: entry.private };
    });
  }

  private readonly settingsQueue = new SerialQueue();

  saveSettings(patch: Record<string, unknown>): Promise<Settings> {
    // One save at a time, each reading the settings the previous one left.
    return this.settingsQueue.run(async () => {
      const applied = applySettingsPatch(this.settings, patch);
      if (!applied.ok) {
        throw new ApiFailure(
          "invalid",
          applied.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("; "),
          applied.errors,
        );
      }
      const next = applied.settings;
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const key of Object.keys(next) as (keyof Settings)[]) {
        if (next[key] !== this.settings[key]) {
          changes[key] = { from: this.settings[key], to: next[key] };
        }
      }
      if (Object.keys(changes).length === 0) return this.settings;
      // The one change that can fail goes first, so a refused port saves nothing.
      if ("httpEnabled" in changes || "httpPort" in changes) {
        await this.applyHttp(next).catch((error: unknown) => {
          throw new ApiFailure(
            "unavailable",
            `MCP over HTTP could not start on port ${next.httpPort}: ${String(error)}`,
            [{ path: ["httpPort"], message: "this port could not be used" }],
          );
        });
      }
      await writeFileAtomic(
        path.join(this.options.dataDir, SETTINGS_FILE),
        JSON.stringify(next, null, 2) + "\n",
      );
      this.settings = next;
      this.gate.setCap(next.maxConcurrentRuns);
      this.sandbox.setPoolSize(next.warmPoolSize);
      this.audit.configure({
        retentionDays: next.auditRetentionDays,
        maxFileBytes: next.auditMaxFileMiB * 1024 * 1024,
        maxTotalBytes: next.auditMaxTotalMiB * 1024 * 1024,
      });
      this.engine.updateSettings(this.engineSettings());
      this.record({ kind: "settings_changed", changes });
      this.events.emit("settings.changed", next);
      return next;
    });
  }

  /** Shuts down cleanly: runs cancelled, containers removed, servers closed, socket removed. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.dockerTimer) clearInterval(this.dockerTimer);
      if (this.auditProbeTimer) clearInterval(this.auditProbeTimer);
      await this.listener?.close().catch(() => undefined);
      await this.http?.close().catch(() => undefined);
      await this.sessions.closeAll();
      this.engine.close();
      await Promise.allSettled([this.sandbox.close(), this.servers.close()]);
      // Runs refused while Docker is still away are on the record too.
      const refused = this.runRefusals.take("docker_unreachable");
      if (refused) this.record(refused);
      await this.auditDurable();
      await this.audit.close().catch(() => undefined);
      await this.lock.release();
    })();
    return this.stopping;
  }
}

// The Code Mode sides of bench/bridge-overhead.ts, built from the modules of one checkout: this
// one, or (CODEMODE_BEFORE_CHECKOUT) an older one, so that both run in the same rounds. Each side
// has its own toy server process, sandbox (warm pool) and audit log, and two engines: one whose
// audit entries go through the real writer (AuditRecorder -> AuditLog with fsync), as the app
// runs, and one whose entries are discarded.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type Dockerode from "dockerode";
import type { SandboxEngine } from "../electron/host/sandbox/container-engine/sandbox-engine.js";
import type * as AuditRecorderModule from "../electron/host/audit/audit-recorder.js";
import type * as AuditLogModule from "../electron/host/audit/audit-log.js";
import type * as BridgeEventsModule from "../electron/host/core/bridge/bridge-events.js";
import type * as TaintModule from "../electron/host/core/bridge/taint.js";
import type * as EngineModule from "../electron/host/core/engine/code-mode-engine.js";
import type * as OwnerModule from "../electron/host/sandbox/containers/container-owner.js";
import type * as SandboxModule from "../electron/host/sandbox/sandbox.js";
import type * as ServerConfigModule from "../electron/host/servers/config/server-config.js";
import type * as ServerSetModule from "../electron/host/servers/server-set.js";
import type { RunResult } from "../shared/run-result.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";

/** The modules of one checkout that a call goes through. */
export interface CallPath {
  AuditRecorder: typeof AuditRecorderModule.AuditRecorder;
  AuditLog: typeof AuditLogModule.AuditLog;
  discardBridgeEvents: typeof BridgeEventsModule.discardBridgeEvents;
  TaintRegistry: typeof TaintModule.TaintRegistry;
  CodeModeEngine: typeof EngineModule.CodeModeEngine;
  currentOwner: typeof OwnerModule.currentOwner;
  Sandbox: typeof SandboxModule.Sandbox;
  singleServerConfig: typeof ServerConfigModule.singleServerConfig;
  ServerSet: typeof ServerSetModule.ServerSet;
}

/** Imports the call path's modules from the checkout at `root` (TypeScript, through tsx). */
export async function loadCallPath(root: string): Promise<CallPath> {
  const load = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(path.join(root, "electron", "host", file)).href)) as T;
  const [recorder, log, events, taint, engine, owner, sandbox, config, set] = await Promise.all([
    load<typeof AuditRecorderModule>("audit/audit-recorder.ts"),
    load<typeof AuditLogModule>("audit/audit-log.ts"),
    load<typeof BridgeEventsModule>("core/bridge/bridge-events.ts"),
    load<typeof TaintModule>("core/bridge/taint.ts"),
    load<typeof EngineModule>("core/engine/code-mode-engine.ts"),
    load<typeof OwnerModule>("sandbox/containers/container-owner.ts"),
    load<typeof SandboxModule>("sandbox/sandbox.ts"),
    load<typeof ServerConfigModule>("servers/config/server-config.ts"),
    load<typeof ServerSetModule>("servers/server-set.ts"),
  ]);
  return {
    AuditRecorder: recorder.AuditRecorder,
    AuditLog: log.AuditLog,
    discardBridgeEvents: events.discardBridgeEvents,
    TaintRegistry: taint.TaintRegistry,
    CodeModeEngine: engine.CodeModeEngine,
    currentOwner: owner.currentOwner,
    Sandbox: sandbox.Sandbox,
    singleServerConfig: config.singleServerConfig,
    ServerSet: set.ServerSet,
  };
}

export interface CodeModeSides {
  /** Starts the toy server and warms the sandbox. */
  open(): Promise<void>;
  run(code: string, audited: boolean): Promise<RunResult>;
  /**
   * The same code in a sandbox of its own (so the engine's warm container and staged catalog
   * stay as they are) whose host answers each `echo` call at once with "x": no bridge, no
   * server, no audit. What is left of a call is the runner's share through the attach stream.
   */
  runBare(code: string): Promise<RunResult>;
  close(): Promise<void>;
}

export async function codeModeSides(
  m: CallPath,
  options: { docker: Dockerode; engine: SandboxEngine; image: string; calls: number },
): Promise<CodeModeSides> {
  const auditDir = mkdtempSync(path.join(os.tmpdir(), "codemode-bench-audit-"));
  const log = await m.AuditLog.open({ dir: auditDir });
  const recorder = new m.AuditRecorder(
    (entry) => void log.append(entry),
    () => [],
  );
  const servers = new m.ServerSet(
    m.singleServerConfig(process.execPath, [TOY_SERVER_JS], {
      allow: ["echo"],
      private: [],
      env: {},
    }),
  );
  const newSandbox = (): SandboxModule.Sandbox =>
    // An older checkout's Sandbox takes the dockerode client, this one's the engine: give both.
    new m.Sandbox({
      ...({ docker: options.docker } as object),
      engine: options.engine,
      image: options.image,
      owner: m.currentOwner("codemode-bench"),
    });
  const sandbox = newSandbox();
  const bare = newSandbox();
  const engine = (audit: boolean): EngineModule.CodeModeEngine =>
    new m.CodeModeEngine({
      servers,
      sandbox,
      taint: new m.TaintRegistry(),
      events: audit ? recorder : m.discardBridgeEvents,
      runEvents: audit ? recorder : {},
      prefixWithServer: false,
      // The default budget (200) may be below one round's calls; the budget costs nothing per call.
      settings: { maxCallsPerRun: options.calls },
    });
  const audited = engine(true);
  const unaudited = engine(false);
  return {
    async open() {
      await servers.open();
      await sandbox.run({ code: "print(1)" }); // warm the engine's caches first
      await bare.run({ code: "print(1)" });
    },
    run: (code, audit) => (audit ? audited : unaudited).run({ code }, { client: "bench" }),
    runBare: (code) =>
      bare.run(
        { code, tools: [{ name: "echo", stub: "" }] },
        { onCall: () => Promise.resolve({ ok: true, value: "x" }) },
      ),
    async close() {
      audited.close();
      unaudited.close();
      await Promise.allSettled([sandbox.close(), bare.close(), servers.close()]);
      await log.close();
      rmSync(auditDir, { recursive: true, force: true });
    },
  };
}

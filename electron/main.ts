// The Electron main process: only what needs Electron. The host (servers, sandbox, audit,
// socket, API) is the same one `codemode daemon` runs; this file wires it to a tray, a
// window and IPC.
import { registerPathPickerIpc } from "./ipc/register-path-picker-ipc.js";
import { registerAuditExportIpc } from "./ipc/register-audit-export-ipc.js";
import path from "node:path";
import { app, BrowserWindow, dialog, ipcMain, Notification } from "electron";
import type { ServerView, TaintView } from "../shared/api/api-views.js";
import {
  AlreadyRunningError,
  CodeModeHost,
  capAppLogWhileRunning,
  dataDir as defaultDataDir,
  prepareDataDir,
  type AppStatus,
  type RunGate,
  type SandboxSupervisor,
} from "./host/app/index.js";
import { registerApiIpc } from "./ipc/register-api-ipc.js";
import { safeStorageCheckpointSigner } from "./secrets/safe-storage-checkpoint-signer.js";
import { safeStorageCodec } from "./secrets/safe-storage-codec.js";
import { approvalNotifier } from "./notify/approval-notices.js";
import { AppTray } from "./tray/tray.js";
import type { TrayAction, TraySnapshot } from "./tray/tray-state.js";
import { createMainWindow, showPage } from "./window/main-window.js";

let quitting = false;
let host: CodeModeHost | null = null;
/** What the tray reads and does, from the services that own it (null until the host starts). */
let traySources: TraySources | null = null;
let window: BrowserWindow | null = null;
let tray: AppTray | null = null;

const log = (line: string): void => console.error(`codemode: ${line}`);

/** Packaged: resources/ holds the shim and the sandbox image context beside the app. */
function resource(...parts: string[]): string {
  return app.isPackaged
    ? path.join(process.resourcesPath, ...parts)
    : path.join(app.getAppPath(), ...parts);
}

/** MCP clients start the shim with this app's own executable running as plain Node. */
function shimLaunch(dataDir: string) {
  return {
    command: process.execPath,
    args: [resource("dist-shim", "codemode-shim.mjs")],
    env: { ELECTRON_RUN_AS_NODE: "1", CODEMODE_HOME: dataDir },
  };
}

interface TraySources {
  sandbox: Pick<SandboxSupervisor, "dockerView" | "imagePresent">;
  gate: Pick<RunGate, "active" | "paused">;
  status: Pick<AppStatus, "info" | "setPaused">;
  audit: { readonly failure: string | null };
  serverViews(): ServerView[];
  taintViews(): TaintView[];
  pendingApprovals(): number;
}

// Cheap on purpose: it runs on every client and server event, so it asks Docker nothing.
function snapshot(s: TraySources): TraySnapshot {
  const info = s.status.info();
  return {
    dockerReady: s.sandbox.dockerView().state === "ready",
    imagePresent: s.sandbox.imagePresent,
    failedServers: s
      .serverViews()
      .filter((server) => server.status === "failed")
      .map((server) => server.name),
    problems: info.startupProblems.length + (info.catalogError ? 1 : 0),
    runningRuns: s.gate.active,
    privateClients: s.taintViews().map((t) => t.client),
    paused: s.gate.paused,
    openAtLogin: app.getLoginItemSettings().openAtLogin,
    auditFailing: s.audit.failure !== null,
    dockerUnreachable: s.sandbox.dockerView().state === "unreachable",
    pendingApprovals: s.pendingApprovals(),
    heldTools: s.serverViews().reduce((sum, server) => sum + server.held, 0),
    startingServers: s
      .serverViews()
      .filter((server) => server.status === "starting")
      .map((server) => server.name),
  };
}

function openWindow(hash = "#/servers"): void {
  if (!window) {
    window = createMainWindow(path.join(__dirname, "preload.cjs"), () => quitting);
    window.on("closed", () => (window = null));
  }
  showPage(window, hash);
}

/** The approval panel shows over whatever page is open; with no window, over the servers. */
function openApprovals(): void {
  if (window) {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  } else openWindow();
}

function onTrayAction(action: TrayAction): void {
  switch (action) {
    case "open":
      return openWindow();
    case "approvals":
      return openApprovals();
    case "review":
      // Each server with held changes shows its badge and review there.
      return openWindow("#/servers");
    case "audit":
      return openWindow("#/audit");
    case "toggle-pause":
      traySources?.status.setPaused(!traySources.gate.paused);
      break;
    case "toggle-login":
      app.setLoginItemSettings({ openAtLogin: !app.getLoginItemSettings().openAtLogin });
      break;
    case "quit":
      app.quit();
      return;
  }
  refreshTray();
}

function refreshTray(): void {
  if (traySources && tray) tray.update(snapshot(traySources));
}

async function start(): Promise<void> {
  // The same directory the daemon and the shim compute, so `codemode shim` finds this app.
  const dataDir = defaultDataDir(process.env);
  try {
    // The key file is read (or created) in the data directory: judge the directory first.
    await prepareDataDir(dataDir);
    const checkpointKey = await safeStorageCheckpointSigner(dataDir).catch((error: unknown) => ({
      signer: undefined,
      problem: `the audit checkpoint key could not be read or created (${String(error)}): audit checkpoints are not signed`,
      keyFileExisted: true,
    }));
    if (checkpointKey.problem !== null) log(checkpointKey.problem);
    host = await CodeModeHost.start({
      dataDir,
      version: app.getVersion(),
      shimLaunch: shimLaunch(dataDir),
      contextDir: resource("sandbox-image"),
      secretCodec: safeStorageCodec(),
      checkpointSigner: checkpointKey.signer,
      checkpointExpected: checkpointKey.keyFileExisted,
      // A key file that was there but cannot be used is reported, not passed over.
      checkpointKeyProblem: checkpointKey.keyFileExisted ? checkpointKey.problem : null,
      log,
    });
    // Started by a shim, our output is the app log: keep it to its size cap while we run.
    capAppLogWhileRunning(dataDir);
  } catch (error) {
    if (error instanceof AlreadyRunningError) {
      dialog.showErrorBox("Code Mode is already running", error.message);
    } else {
      dialog.showErrorBox(
        "Code Mode could not start",
        error instanceof Error ? error.message : String(error),
      );
    }
    app.exit(1);
    return;
  }
  const trusted = (sender: Electron.WebContents): boolean =>
    window !== null && sender === window.webContents;
  const running = host;
  const { api, events, sandbox, gate, status, audit } = host;
  traySources = {
    sandbox,
    gate,
    status,
    audit: host.hostAudit,
    // The host's own views: they count each server's held tools (the tray's "Changes to review").
    serverViews: () => running.serverViews(),
    taintViews: () => running.taintViews(),
    pendingApprovals: () => host?.approvals.list().length ?? 0,
  };
  registerApiIpc(ipcMain, { api, events }, trusted, log);
  registerPathPickerIpc(
    ipcMain,
    (sender, options) => {
      const owner = BrowserWindow.fromWebContents(sender);
      return owner ? dialog.showOpenDialog(owner, options) : dialog.showOpenDialog(options);
    },
    trusted,
  );
  registerAuditExportIpc(
    ipcMain,
    (sender, options) => {
      const owner = BrowserWindow.fromWebContents(sender);
      return owner ? dialog.showSaveDialog(owner, options) : dialog.showSaveDialog(options);
    },
    (format, out, filter) => audit.export(format, out, filter),
    trusted,
  );
  tray = new AppTray(onTrayAction);
  for (const event of [
    "servers.changed",
    "clients.changed",
    "taint.changed",
    "docker.changed",
    "app.changed",
    "image.build",
    "approvals.changed",
  ] as const) {
    events.on(event, () => refreshTray());
  }
  // "Ask first": a notification per new question; clicking it opens the approval panel.
  events.on(
    "approvals.changed",
    approvalNotifier((notice) => {
      if (!Notification.isSupported()) return;
      const shown = new Notification({ title: notice.title, body: notice.body });
      shown.on("click", () => openApprovals());
      shown.show();
    }),
  );
  refreshTray();
  // The host takes clients before a slow engine answers: the window waits for its answer.
  await sandbox.settled();
  const first = sandbox.dockerView().state !== "ready" || !(await sandbox.imageStatus()).present;
  // Started at login: stay in the tray unless something needs the user.
  if (!app.getLoginItemSettings().wasOpenedAtLogin || first)
    openWindow(first ? "#/first-run" : "#/servers");
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on("second-instance", () => openWindow());
  // The tray keeps the app alive with no window open.
  app.on("window-all-closed", () => undefined);
  app.on("before-quit", (event) => {
    if (quitting || !host) return;
    event.preventDefault();
    quitting = true;
    const stopping = host;
    host = null;
    traySources = null;
    void stopping.stop().finally(() => {
      tray?.destroy();
      app.quit();
    });
  });
  app.on("activate", () => openWindow());
  void app.whenReady().then(start);
}

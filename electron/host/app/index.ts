// The host's one public module: what the faces start the host with and talk to it through.
// The Electron shell imports nothing else of the host; `codemode daemon` and `codemode serve`
// compose the host through it (lint checks both: see eslint.config.js, "layers").
export { CodeModeHost } from "./code-mode-host.js";
export type { HostOptions } from "./host-options.js";
export { prepareDataDir } from "./open-host.js";
export { runEngineBuilder, type RunEngineBuilder, type RunEngine } from "./run-engine.js";
export { hostWorkspaces, workspacePaths } from "./host-workspaces.js";
export type { AppStatus } from "./app-status.js";
export type { RunGate } from "./run-gate.js";
export type { SandboxSupervisor } from "../sandbox/sandbox-supervisor.js";

// The typed API, as the shell's IPC and the browser UI's server hand requests to it.
export { dispatchApi } from "../api/api-dispatcher.js";
export type { EventHub } from "../api/event-hub.js";
export type { ShimLaunch } from "../api/clients/client-snippets.js";
export { UiServer } from "../ingress/ui-server/ui-server.js";

// What the shell does itself: the audit export's save dialog, the keychain, the data directory.
export { exportAuditToFile, type AuditExporter } from "../audit/audit-export-file.js";
export {
  checkpointSignerFromKeychain,
  type CheckpointKeyResult,
  type KeychainLike,
} from "../audit/checkpoint-key.js";
export type { SecretCodec } from "../servers/config/secret-codec.js";
export { DataDirTrustError } from "../ingress/local-access/data-dir-trust.js";
export { AlreadyRunningError } from "../ingress/local-access/instance-lock.js";
export { capAppLogWhileRunning } from "../ingress/local-access/app-log.js";
export { dataDir } from "../util/paths.js";

// What the host is started with, and what of its data directory it trusts.
import { PINS_FILE } from "../servers/pins/tool-pins.js";
import type { CheckpointSigner } from "../audit/audit-checkpoint.js";
import { CHECKPOINT_FILE, SET_ASIDE_SUFFIX } from "../audit/audit-checkpoint.js";
import type { ShimLaunch } from "../api/clients/client-snippets.js";
import type { DockerStatus } from "../sandbox/container-engine/docker-status.js";
import { LOCAL_ACCESS_NAMES } from "../ingress/local-access/local-access-constants.js";
import { INSTALL_ID_FILE } from "../sandbox/containers/install-id.js";
import { SERVERS_FILE } from "../servers/config/config-store.js";
import { BUNDLES_DIR } from "../servers/mcpb/bundle-store.js";
import type { ServerPath } from "../servers/server-path.js";
import type { SecretCodec } from "../servers/config/secret-codec.js";
import { CHECKPOINT_KEY_FILE } from "../audit/checkpoint-key.js";
import { SETTINGS_FILE } from "../servers/settings/settings-file.js";

/**
 * At the app's start, how long after it began the host takes clients at the latest (or
 * STARTUP_MIN_WAIT_MS after the login shell answered, when that is later). Until then it waits
 * for the login shell's PATH, Docker's first look and its servers: those up by then are in the
 * first `tools/list`, the others join when ready (list_changed). A shim that starts the app waits
 * SHIM_START_WAIT_MS (10 s, shim.ts) for it: waiting for every server (a first `npx` download,
 * one that never answers), or each wait after the one before (a slow profile, then a mute
 * engine), made the client fail.
 */
export const SERVER_STARTUP_WAIT_MS = 5_000;

/**
 * However long the login shell took (up to LOGIN_SHELL_TIMEOUT_MS, 5 s), Docker's look and the
 * servers get this long at least, so that a fast server is still in the first `tools/list`.
 */
export const STARTUP_MIN_WAIT_MS = 1_000;

/** How long Docker's look and the servers are waited for, in a start that began at `startedAt`. */
export function startupWaitLeft(startedAt: number, now: number = performance.now()): number {
  return Math.max(STARTUP_MIN_WAIT_MS, SERVER_STARTUP_WAIT_MS - (now - startedAt));
}

/** While Docker is not ready, the host looks for it again this often. */
export const DOCKER_POLL_MS = 10_000;

/** While the audit log cannot be written (runs refused), how often writing is tried again. */
export const AUDIT_PROBE_MS = 5_000;

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
  // Pinned tool definitions: what decides which tools the code may call.
  PINS_FILE,
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
  /** How often to look for Docker again while it is not ready (default DOCKER_POLL_MS). */
  dockerPollMs?: number;
  /** How often to try the audit log again while it cannot be written (default AUDIT_PROBE_MS). */
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
  /**
   * A new one-time link to the browser UI, for `codemode ui open` on the local socket; null
   * (or absent) when this host serves no browser UI.
   */
  uiLink?: () => string | null;
}

// The first stage of starting the host, apart from the composition root (code-mode-host.ts):
// the data directory checked, the instance lock taken, and what the services are built from
// read or opened. On failure the lock is released again.

import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { AuditLog } from "../audit/audit-log.js";
import { checkDataDirTrust } from "../ingress/local-access/data-dir-trust.js";
import { acquireInstanceLock, type InstanceLock } from "../ingress/local-access/instance-lock.js";
import { ensureToken } from "../ingress/local-access/token.js";
import { currentOwner } from "../sandbox/containers/container-owner.js";
import { ensureInstallId } from "../sandbox/containers/install-id.js";
import { ConfigStore, SERVERS_FILE } from "../servers/config/config-store.js";
import { ServerSet } from "../servers/server-set.js";
import { PINS_FILE, ToolPins } from "../servers/pins/tool-pins.js";
import { resolveServerPath, type ServerPath } from "../servers/server-path.js";
import { catalogInput } from "../servers/catalog-input.js";
import { DATA_DIR_TRUSTED_ENTRIES, type HostOptions } from "./host-options.js";
import { loadHostState, openHostAudit, type HostState } from "./host-state.js";
import { configSecrets } from "../core/secrets/secret-mask.js";

/** What is made before the services: the lock held, the token, the files read, the log open. */
export interface OpenedDataDir {
  lock: InstanceLock;
  /** The PATH wrapped servers start with, resolved once at start. */
  serverPath: ServerPath;
  token: string;
  state: HostState;
  servers: ServerSet;
  configStore: ConfigStore;
  audit: AuditLog;
  owner: ReturnType<typeof currentOwner>;
  /** Pinned tool definitions of the app's servers: changed and new ones are held for review. */
  pins: ToolPins;
}

/**
 * Makes the data directory (0700) if it is not there, and refuses one another user owns or can
 * write (DataDirTrustError): before anything in it is read or written, since such a directory
 * is theirs.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await checkDataDirTrust(dataDir, DATA_DIR_TRUSTED_ENTRIES);
}

export async function openHost(options: HostOptions): Promise<OpenedDataDir> {
  const log = options.log ?? (() => undefined);
  await prepareDataDir(options.dataDir);
  const lock = await acquireInstanceLock(options.dataDir);
  // The login shell takes a moment (nvm, conda): it runs while the rest loads.
  const serverPathResolving = (
    options.resolveServerPath ?? (() => resolveServerPath({ env: options.env }))
  )();
  try {
    const token = await ensureToken(options.dataDir);
    const state = await loadHostState(options.dataDir, options.secretCodec, options.now);
    const serverPath = await serverPathResolving;
    if (serverPath.shellProblem !== null) {
      log(`servers get PATH without the login shell's: ${serverPath.shellProblem}`);
    }
    const servers = new ServerSet(
      { servers: new Map() },
      { serverOptions: { path: serverPath.path } },
    );
    const configStore = new ConfigStore(state.config, {
      file: path.join(options.dataDir, SERVERS_FILE),
      secretCodec: options.secretCodec,
      catalogInput: (next) => catalogInput(servers, next),
      listedTools: (server) => (servers.get(server)?.tools ?? []).map((t) => t.name),
      locked: state.configLocked,
    });
    // Read live: a value marked secret a moment ago is scrubbed from the next entry.
    const audit = await openHostAudit(options, state, () => configSecrets(configStore.current));
    const owner = currentOwner(await ensureInstallId(options.dataDir));
    // An unusable pin file is kept aside and reported; every server's tools are then held.
    const { pins, problem } = await ToolPins.open(path.join(options.dataDir, PINS_FILE));
    if (problem !== null) state.problems.push(problem);
    return { lock, token, state, servers, configStore, audit, owner, serverPath, pins };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

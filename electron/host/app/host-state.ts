// What the host reads from its data directory at start: its settings and its servers. A file
// that cannot be used is kept aside and reported, and the app starts on defaults.
import path from "node:path";
import { findAbandonedRuns } from "../audit/abandoned-runs.js";
import { CHECKPOINT_FILE } from "../audit/audit-checkpoint.js";
import { AuditLog } from "../audit/audit-log.js";
import { loadServersConfig, SERVERS_FILE } from "../servers/config/config-store.js";
import type { ServersConfig } from "../core/ports/server-config-types.js";
import { parseSettingsFile, type SavedSettings } from "../servers/settings/settings-file.js";
import { DEFAULT_SETTINGS, type Settings } from "../servers/settings/settings.js";
import { loadFile } from "../util/atomic-file.js";
import type { SecretCodec } from "../servers/config/secret-codec.js";
import type { HostOptions } from "./host-options.js";
import { auditSettings } from "./settings-applier.js";
import { SETTINGS_FILE } from "../servers/settings/settings-file.js";

export interface HostState {
  settings: Settings;
  /** What the user chose of `settings` (the rest are defaults). */
  chosenSettings: SavedSettings["chosen"];
  config: ServersConfig;
  /** Why the servers file must not be written (LoadedConfig.locked), or null. */
  configLocked: string | null;
  /** Why a saved file could not be used, in words for the user. */
  problems: string[];
}

export async function loadHostState(
  dataDir: string,
  secretCodec: SecretCodec | undefined,
  now: (() => Date) | undefined,
): Promise<HostState> {
  const problems: string[] = [];
  const settingsFile = await loadFile(path.join(dataDir, SETTINGS_FILE), parseSettingsFile, now);
  let settings = DEFAULT_SETTINGS;
  let chosenSettings: SavedSettings["chosen"] = {};
  if (settingsFile.state === "ok") ({ settings, chosen: chosenSettings } = settingsFile.value);
  if (settingsFile.state === "invalid") {
    problems.push(
      `${settingsFile.problem}. It was kept as ${settingsFile.keptAs}; defaults are in use.`,
    );
  }
  const loaded = await loadServersConfig(path.join(dataDir, SERVERS_FILE), secretCodec, now);
  if (loaded.problem !== null) problems.push(loaded.problem);
  return {
    settings,
    chosenSettings,
    config: loaded.config,
    configLocked: loaded.locked,
    problems,
  };
}

/**
 * Opens the audit log under the settings; what it found at start joins `state.problems`, and
 * runs a crash left unfinished are marked abandoned.
 */
export async function openHostAudit(
  options: HostOptions,
  state: HostState,
  secrets: () => string[],
): Promise<AuditLog> {
  const audit = await AuditLog.open({
    dir: path.join(options.dataDir, "audit"),
    now: options.now,
    ...auditSettings(state.settings),
    secrets,
    onError: (error) => options.log?.(`audit: ${String(error)}`),
    checkpoint: {
      file: path.join(options.dataDir, CHECKPOINT_FILE),
      signer: options.checkpointSigner ?? null,
      expected: options.checkpointExpected,
      keyProblem: options.checkpointKeyProblem,
    },
  });
  const { checkpointProblem, tornFile, tornBytes } = audit.recovery;
  if (checkpointProblem) state.problems.push(checkpointProblem);
  if (tornFile) {
    state.problems.push(
      `The audit log's last line was cut off by a crash; its ${tornBytes} bytes were kept in ${tornFile}.`,
    );
  }
  await markAbandonedRuns(options, audit);
  return audit;
}

/**
 * Runs in flight when the app last stopped without a goodbye (a crash, a kill) kept a
 * run_started with no end: the log says what became of them before anything new starts.
 */
async function markAbandonedRuns(options: HostOptions, audit: AuditLog): Promise<void> {
  const log = options.log ?? (() => undefined);
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
}

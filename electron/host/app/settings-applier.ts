// The one place that knows which subsystem reacts to which setting. A save is checked, the
// change that can fail (MCP over HTTP on a port) is tried first so a refused port saves
// nothing, the file is written, then every subsystem whose settings changed is told.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ApiFailure } from "../../../shared/api/api-failure.js";
import { poolGrowthFor, type PoolGrowth } from "../sandbox/pool-target.js";
import type { SettingsPatch } from "../../../shared/settings.js";
import {
  parseSettingsFile,
  SETTINGS_FILE,
  settingsFileText,
  type SavedSettings,
} from "../servers/settings/settings-file.js";
import {
  applySettingsPatch,
  DEFAULT_SETTINGS,
  type Settings,
} from "../servers/settings/settings.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import { SerialQueue } from "../util/serial-queue.js";

const MIB = 1024 * 1024;

/** What the engine reads from the settings. */
export function engineSettings(settings: Settings) {
  return {
    maxCallsPerRun: settings.maxCallsPerRun,
    descriptionBudgetChars: settings.descriptionBudgetChars,
    serverConcurrency: settings.serverConcurrency,
  };
}

/** What the audit log reads from the settings. */
export function auditSettings(settings: Settings) {
  return {
    retentionDays: settings.auditRetentionDays,
    maxFileBytes: settings.auditMaxFileMiB * MIB,
    maxTotalBytes: settings.auditMaxTotalMiB * MIB,
  };
}

/** The subsystems that follow the settings, each by the one method it offers for it. */
export interface SettingsSubsystems {
  http: { apply(settings: Settings): Promise<void> };
  gate: { setCap(cap: number): void };
  sandbox: {
    setPoolSize(size: number): void;
    setPoolGrowth(growth: PoolGrowth): void;
    setDeadlineSeconds(seconds: number): void;
    /** Throws, saying why, when the engine lacks the runtime. */
    checkRuntime(runtime: Settings["sandboxRuntime"]): Promise<void>;
    setRuntime(runtime: Settings["sandboxRuntime"]): void;
    setPreload(preload: boolean): void;
    /** Leaves the engine in use for the one chosen (a name or URL; "" looks for one). */
    setEngine(engine: string): Promise<unknown>;
  };
  audit: { configure(options: ReturnType<typeof auditSettings>): void };
  engine: { updateSettings(settings: ReturnType<typeof engineSettings>): void };
  approvals: { setTimeoutSeconds(seconds: number): void };
}

interface Reaction {
  keys: readonly (keyof Settings)[];
  apply: (subsystems: SettingsSubsystems, next: Settings) => void | Promise<void>;
}

/** The change that can fail (subsystems.http.apply); it runs before the save. */
const HTTP_REACTION = { keys: ["httpEnabled", "httpPort"] } as const;

/** The runtime is checked against the engine's before the save (subsystems.sandbox.checkRuntime). */
const RUNTIME_CHECK = { keys: ["sandboxRuntime"] } as const;

/** The changes that cannot fail; they run after the save. */
const REACTIONS: readonly Reaction[] = [
  { keys: ["maxConcurrentRuns"], apply: (s, next) => s.gate.setCap(next.maxConcurrentRuns) },
  { keys: ["warmPoolSize"], apply: (s, next) => s.sandbox.setPoolSize(next.warmPoolSize) },
  {
    // The concurrent-runs limit caps how far the pool grows.
    keys: ["warmPoolMaxSize", "warmPoolIdleSeconds", "maxConcurrentRuns"],
    apply: (s, next) => s.sandbox.setPoolGrowth(poolGrowthFor(next)),
  },
  {
    keys: ["deadlineSeconds"],
    apply: (s, next) => s.sandbox.setDeadlineSeconds(next.deadlineSeconds),
  },
  {
    // Warm containers of the old runtime are replaced; runs in flight keep theirs.
    keys: ["sandboxRuntime"],
    apply: (s, next) => s.sandbox.setRuntime(next.sandboxRuntime),
  },
  {
    // Idle warm containers made the other way are replaced; runs in flight keep theirs.
    keys: ["sandboxPreload"],
    apply: (s, next) => s.sandbox.setPreload(next.sandboxPreload),
  },
  {
    // Runs in flight on the old engine end; later ones go to the new one once it answers.
    keys: ["sandboxEngine"],
    apply: (s, next) => void s.sandbox.setEngine(next.sandboxEngine),
  },
  {
    keys: ["auditRetentionDays", "auditMaxFileMiB", "auditMaxTotalMiB"],
    apply: (s, next) => s.audit.configure(auditSettings(next)),
  },
  {
    keys: ["maxCallsPerRun", "descriptionBudgetChars", "serverConcurrency"],
    apply: (s, next) => s.engine.updateSettings(engineSettings(next)),
  },
  {
    keys: ["approvalTimeoutSeconds"],
    apply: (s, next) => s.approvals.setTimeoutSeconds(next.approvalTimeoutSeconds),
  },
  {
    // The workspaces read their limits at each use (host-workspaces.ts): nothing to tell.
    keys: ["workspaceMaxMiB", "workspacesPerClient", "workspaceKeepDays"],
    apply: () => undefined,
  },
];

/** Every setting some subsystem reacts to (a test holds this to the whole of Settings). */
export const SETTINGS_WITH_REACTIONS: readonly (keyof Settings)[] = [
  // A setting may drive two subsystems (the concurrent-runs limit also caps the pool).
  ...new Set([HTTP_REACTION, ...REACTIONS].flatMap((reaction) => reaction.keys)),
];

export type SettingsChanges = Record<string, { from: unknown; to: unknown }>;

export interface SettingsApplierOptions {
  dataDir: string;
  subsystems: SettingsSubsystems;
  /** Told of every change once it is saved and applied. */
  changed: (next: Settings, changes: SettingsChanges) => void;
}

/** What differs from the defaults, taken as chosen when only the settings in force are known. */
function differingFromDefaults(settings: Settings): SettingsPatch {
  return Object.fromEntries(
    Object.entries(settings).filter(
      ([key, value]) => DEFAULT_SETTINGS[key as keyof Settings] !== value,
    ),
  );
}

export class SettingsApplier {
  private settings: Settings;
  /** What the user chose: the file keeps only these, so new defaults reach the rest. */
  private chosen: SettingsPatch;
  private readonly queue = new SerialQueue();

  constructor(
    initial: Settings | SavedSettings,
    private readonly options: SettingsApplierOptions,
  ) {
    if ("chosen" in initial) {
      this.settings = initial.settings;
      this.chosen = initial.chosen;
    } else {
      this.settings = initial;
      this.chosen = differingFromDefaults(initial);
    }
  }

  get current(): Settings {
    return this.settings;
  }

  /**
   * The choices saved in the file now: another writer (`codemode engine use` while the app
   * runs) may have saved one since, which applies from the next start and must not be lost
   * when this save writes the file. What this app last knew when the file is gone or unusable.
   */
  private async chosenInFile(file: string): Promise<SettingsPatch> {
    const text = await readFile(file, "utf8").catch(() => null);
    if (text === null) return this.chosen;
    const parsed = parseSettingsFile(text);
    return parsed.ok ? parsed.value.chosen : this.chosen;
  }

  /** One save at a time, each reading the settings the previous one left. */
  save(patch: Record<string, unknown>): Promise<Settings> {
    return this.queue.run(async () => {
      const applied = applySettingsPatch(this.settings, patch);
      if (!applied.ok) {
        throw new ApiFailure(
          "invalid",
          applied.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("; "),
          applied.errors,
        );
      }
      const next = applied.settings;
      const changes: SettingsChanges = {};
      for (const key of Object.keys(next) as (keyof Settings)[]) {
        if (next[key] !== this.settings[key]) {
          changes[key] = { from: this.settings[key], to: next[key] };
        }
      }
      if (Object.keys(changes).length === 0) return this.settings;
      const touched = (reaction: { keys: readonly (keyof Settings)[] }) =>
        reaction.keys.some((key) => key in changes);
      const { subsystems } = this.options;
      if (touched(RUNTIME_CHECK)) {
        await subsystems.sandbox.checkRuntime(next.sandboxRuntime).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          throw new ApiFailure("invalid", `sandbox runtime: ${message}`, [
            { path: ["sandboxRuntime"], message },
          ]);
        });
      }
      if (touched(HTTP_REACTION)) {
        await subsystems.http.apply(next).catch((error: unknown) => {
          throw new ApiFailure(
            "unavailable",
            `MCP over HTTP could not start on port ${next.httpPort}: ${String(error)}`,
            [{ path: ["httpPort"], message: "this port could not be used" }],
          );
        });
      }
      // Every key of the patch is the user's choice, kept even if it equals today's default.
      const file = path.join(this.options.dataDir, SETTINGS_FILE);
      const chosen: SettingsPatch = { ...(await this.chosenInFile(file)) };
      for (const [key, value] of Object.entries(patch)) {
        if (value !== undefined) Object.assign(chosen, { [key]: value });
      }
      await writeFileAtomic(file, settingsFileText(chosen));
      this.settings = next;
      this.chosen = chosen;
      for (const reaction of REACTIONS)
        if (touched(reaction)) await reaction.apply(subsystems, next);
      this.options.changed(next, changes);
      return next;
    });
  }
}

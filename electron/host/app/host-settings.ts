// What the host does with its settings: the sandbox starts from them, and a saved change is
// put to work by the applier, recorded in the audit log and told to every face of the app.
// Kept beside each other so a setting's value at start and its reaction to a change agree.
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { poolGrowthFor } from "../sandbox/pool-target.js";
import type { SavedSettings } from "../servers/settings/settings-file.js";
import type { Settings } from "../servers/settings/settings.js";
import type { EventHub } from "../api/event-hub.js";
import type { SandboxSupervisorOptions } from "../sandbox/sandbox-supervisor-options.js";
import { SettingsApplier, type SettingsSubsystems } from "./settings-applier.js";

/** The sandbox's options that come from the settings (settings changes reach it by setters). */
export function sandboxSettings(
  settings: Settings,
): Pick<
  SandboxSupervisorOptions,
  "poolSize" | "poolGrowth" | "deadlineSeconds" | "runtime" | "preload" | "engine"
> {
  return {
    poolSize: settings.warmPoolSize,
    poolGrowth: poolGrowthFor(settings),
    deadlineSeconds: settings.deadlineSeconds,
    runtime: settings.sandboxRuntime,
    preload: settings.sandboxPreload,
    engine: settings.sandboxEngine,
  };
}

export interface HostSettingsOptions {
  saved: SavedSettings;
  dataDir: string;
  subsystems: SettingsSubsystems;
  record: (entry: AuditEntryInput) => void;
  events: Pick<EventHub, "emit">;
}

/** The applier whose saves reach the subsystems, the audit log and the app's event bus. */
export function hostSettingsApplier(options: HostSettingsOptions): SettingsApplier {
  const { record, events } = options;
  return new SettingsApplier(options.saved, {
    dataDir: options.dataDir,
    subsystems: options.subsystems,
    changed: (next, changes) => {
      record({ kind: "settings_changed", changes });
      events.emit("settings.changed", next);
    },
  });
}

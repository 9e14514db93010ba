// The settings in words: one name per setting and its values as a person reads them, shared by
// the Sandbox page's form and the Audit page's "Settings changed" entries, so the log says
// "Isolation: Standard → Strong", never "sandboxRuntime: runc → runsc".
import type { Settings } from "../../../shared/settings.js";

interface SettingWords {
  /** What the form and the log call it. */
  label: string;
  /** The unit a number is in, as the log writes it after the value ("50 s"). */
  unit?: string;
}

export const SETTING_WORDS: Record<keyof Settings, SettingWords> = {
  sandboxRuntime: { label: "Isolation" },
  sandboxEngine: { label: "Container engine" },
  deadlineSeconds: { label: "Time limit per run", unit: "s" },
  maxCallsPerRun: { label: "Tool calls per run" },
  warmPoolSize: { label: "Sandboxes kept ready" },
  warmPoolMaxSize: { label: "Sandboxes kept ready when busy" },
  warmPoolIdleSeconds: { label: "Back to fewer after", unit: "s" },
  maxConcurrentRuns: { label: "Runs at the same time" },
  approvalTimeoutSeconds: { label: "Time to answer “Ask first”", unit: "s" },
  sandboxPreload: { label: "Load data libraries ahead" },
  serverConcurrency: { label: "Calls to one server at the same time" },
  descriptionBudgetChars: { label: "Room for tool details", unit: "characters" },
  auditRetentionDays: { label: "Keep the audit log", unit: "days" },
  auditMaxFileMiB: { label: "Audit file size", unit: "MiB" },
  auditMaxTotalMiB: { label: "Audit log size in all", unit: "MiB" },
  httpEnabled: { label: "Local HTTP connection" },
  httpPort: { label: "HTTP port" },
  workspaceMaxMiB: { label: "Workspace size", unit: "MiB" },
  workspacesPerClient: { label: "Workspaces per client" },
  workspaceKeepDays: { label: "Keep unused workspaces", unit: "days" },
};

export const RUNTIME_WORDS: Record<Settings["sandboxRuntime"], string> = {
  runc: "Standard",
  runsc: "Strong",
};

/** The setting's name, or the key itself for a setting this UI does not know (a newer host). */
export function settingLabel(key: string): string {
  return (SETTING_WORDS as Record<string, SettingWords | undefined>)[key]?.label ?? key;
}

/** A value of the setting as a person reads it: "Strong", "On", "50 s". */
export function settingValue(key: string, value: unknown): string {
  if (key === "sandboxRuntime" && (value === "runc" || value === "runsc")) {
    return RUNTIME_WORDS[value];
  }
  if (typeof value === "boolean") return value ? "On" : "Off";
  const unit = (SETTING_WORDS as Record<string, SettingWords | undefined>)[key]?.unit;
  if (typeof value === "number") {
    // A port reads as a plain number; anything else with digit grouping.
    const shown = key === "httpPort" ? String(value) : value.toLocaleString("en-US");
    return unit ? `${shown} ${unit}` : shown;
  }
  if (typeof value === "string") return value;
  return value === null || value === undefined ? "—" : JSON.stringify(value);
}

/** "Isolation: Standard → Strong, Time limit per run: 50 s → 30 s". */
export function settingsChangeText(
  changes: Record<string, { from: unknown; to: unknown }>,
): string {
  return Object.entries(changes)
    .map(
      ([key, change]) =>
        `${settingLabel(key)}: ${settingValue(key, change.from)} → ${settingValue(key, change.to)}`,
    )
    .join(", ");
}

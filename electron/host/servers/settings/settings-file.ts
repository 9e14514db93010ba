// The settings file holds only what the user chose, so a default changed in a later version
// reaches everyone who never chose that setting. Files written before this format held every
// setting, chosen or not: they are read once through the old defaults (see RETIRED_DEFAULTS).
import {
  DEFAULT_SETTINGS,
  type Settings,
  type SettingsPatch,
} from "../../../../shared/settings.js";
import { applySettingsPatch } from "./settings.js";

/** The settings file in the data directory. */
export const SETTINGS_FILE = "settings.json";

/** Marks a file holding only chosen settings; a file without it is of the old, full format. */
export const SETTINGS_FILE_VERSION = 2;
const VERSION_KEY = "version";

/**
 * Past defaults of settings whose default has since changed. The old full-format file wrote
 * them for users who never chose a value, so such a value there is taken as not chosen and the
 * current default applies. Add a setting's old default here whenever its default changes.
 */
export const RETIRED_DEFAULTS: { readonly [K in keyof Settings]?: readonly Settings[K][] } = {
  // 8 in the first versions, then 16, until the adaptive per-server slots (default 64): a
  // value under 16 is a fixed cap and at 16 the slots never grow, so either kept a user who
  // never chose it at the old fixed cap.
  serverConcurrency: [8, 16],
  // 12,000 until the compact run_python description (default 3,000).
  descriptionBudgetChars: [12_000],
  // 90 (also the maximum) until the default went under SDK clients' 60 s request timeout
  // (default 50): at 90 a run past 60 s was cut by the client, not by its deadline.
  deadlineSeconds: [90],
  // 1 until the floor of 2 with a lean spare (POOL_LEAN_SPARES): a burst's second run
  // took a cold container.
  warmPoolSize: [1],
};

export interface SavedSettings {
  /** The settings in force: the defaults overlaid by what the user chose. */
  settings: Settings;
  /** What the user chose, the only settings the file keeps. */
  chosen: SettingsPatch;
}

/** The settings in force for what the user chose. */
export function settingsFor(chosen: SettingsPatch): Settings {
  const applied = applySettingsPatch(DEFAULT_SETTINGS, chosen);
  // `chosen` was checked on its way in; a failure here is a bug, not a user's mistake.
  if (!applied.ok)
    throw new Error(`chosen settings are invalid: ${JSON.stringify(applied.errors)}`);
  return applied.settings;
}

/** What an old full-format file's values say the user chose. */
function chosenInOldFile(all: Settings, present: ReadonlySet<string>): SettingsPatch {
  const chosen: Record<string, unknown> = {};
  for (const key of Object.keys(all) as (keyof Settings)[]) {
    if (!present.has(key)) continue;
    const value = all[key];
    const retired = (RETIRED_DEFAULTS[key] ?? []) as readonly unknown[];
    // Equal to today's default or a retired one: the file cannot tell a choice from the
    // default it wrote, so the current default applies (and follows future changes).
    if (value === DEFAULT_SETTINGS[key] || retired.includes(value)) continue;
    chosen[key] = value;
  }
  return chosen;
}

/**
 * Reads a saved settings file: unknown or out-of-bounds values make it invalid, not ignored.
 * A file of the old full format is migrated: see RETIRED_DEFAULTS.
 */
export function parseSettingsFile(
  text: string,
): { ok: true; value: SavedSettings } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: "settings.json is not valid JSON" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: "settings.json must hold an object" };
  }
  const { [VERSION_KEY]: version, ...fields } = raw as Record<string, unknown>;
  if (version !== undefined && version !== SETTINGS_FILE_VERSION) {
    return {
      ok: false,
      problem: `settings.json: version: must be ${SETTINGS_FILE_VERSION} (this file is of another version of the app)`,
    };
  }
  const applied = applySettingsPatch(DEFAULT_SETTINGS, fields);
  if (!applied.ok) {
    return {
      ok: false,
      problem: `settings.json: ${applied.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("; ")}`,
    };
  }
  const chosen =
    version === undefined
      ? chosenInOldFile(applied.settings, new Set(Object.keys(fields)))
      : (fields as SettingsPatch);
  return { ok: true, value: { settings: settingsFor(chosen), chosen } };
}

/** The file's text for what the user chose: only those settings, and the version marker. */
export function settingsFileText(chosen: SettingsPatch): string {
  return JSON.stringify({ [VERSION_KEY]: SETTINGS_FILE_VERSION, ...chosen }, null, 2) + "\n";
}

import { SETTINGS_BOUNDS } from "../../../shared/limits.js";
import type { FieldError, SettingsView } from "../../../shared/api/api-views.js";

export type Settings = SettingsView;
type NumericKey = keyof typeof SETTINGS_BOUNDS;

export const DEFAULT_SETTINGS: Settings = {
  deadlineSeconds: SETTINGS_BOUNDS.deadlineSeconds.default,
  maxCallsPerRun: SETTINGS_BOUNDS.maxCallsPerRun.default,
  descriptionBudgetChars: SETTINGS_BOUNDS.descriptionBudgetChars.default,
  warmPoolSize: SETTINGS_BOUNDS.warmPoolSize.default,
  serverConcurrency: SETTINGS_BOUNDS.serverConcurrency.default,
  maxConcurrentRuns: SETTINGS_BOUNDS.maxConcurrentRuns.default,
  auditRetentionDays: SETTINGS_BOUNDS.auditRetentionDays.default,
  auditMaxFileMiB: SETTINGS_BOUNDS.auditMaxFileMiB.default,
  auditMaxTotalMiB: SETTINGS_BOUNDS.auditMaxTotalMiB.default,
  httpEnabled: false,
  httpPort: SETTINGS_BOUNDS.httpPort.default,
};

const NUMERIC_KEYS = Object.keys(SETTINGS_BOUNDS) as NumericKey[];

/**
 * Applies a patch to settings, refusing any value outside its bounds with an error on
 * that field; nothing is applied unless every field is valid.
 */
export function applySettingsPatch(
  current: Settings,
  patch: Record<string, unknown>,
): { ok: true; settings: Settings } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const next: Settings = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (key === "httpEnabled") {
      if (typeof value !== "boolean")
        errors.push({ path: [key], message: "must be true or false" });
      else next.httpEnabled = value;
      continue;
    }
    if (!(NUMERIC_KEYS as string[]).includes(key)) {
      errors.push({ path: [key], message: `unknown setting "${key}"` });
      continue;
    }
    const bounds = SETTINGS_BOUNDS[key as NumericKey];
    if (typeof value !== "number" || !Number.isInteger(value)) {
      errors.push({ path: [key], message: "must be a whole number" });
    } else if (value < bounds.min || value > bounds.max) {
      errors.push({ path: [key], message: `must be from ${bounds.min} to ${bounds.max}` });
    } else {
      next[key as NumericKey] = value;
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, settings: next };
}

/** Reads a saved settings file: unknown or out-of-bounds values make it invalid, not ignored. */
export function parseSettingsFile(
  text: string,
): { ok: true; value: Settings } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: "settings.json is not valid JSON" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: "settings.json must hold an object" };
  }
  const applied = applySettingsPatch(DEFAULT_SETTINGS, raw as Record<string, unknown>);
  if (!applied.ok) {
    return {
      ok: false,
      problem: `settings.json: ${applied.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("; ")}`,
    };
  }
  return { ok: true, value: applied.settings };
}

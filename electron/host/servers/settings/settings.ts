import type { FieldError } from "../../../../shared/api/api-views.js";
import {
  DEFAULT_SETTINGS,
  settingsPatchSchema,
  type Settings,
} from "../../../../shared/settings.js";

export { DEFAULT_SETTINGS, type Settings };

/**
 * Applies a patch to settings, refusing any value outside its bounds with an error on
 * that field; nothing is applied unless every field is valid.
 */
export function applySettingsPatch(
  current: Settings,
  patch: unknown,
): { ok: true; settings: Settings } | { ok: false; errors: FieldError[] } {
  const parsed = settingsPatchSchema.safeParse(patch);
  if (!parsed.success) {
    const errors = parsed.error.issues.flatMap((issue): FieldError[] =>
      // One error per unknown key, on that key, as for every other field.
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({
            path: [key],
            message: `unknown setting ${JSON.stringify(key)}`,
          }))
        : [{ path: issue.path.map(String), message: issue.message }],
    );
    return { ok: false, errors };
  }
  const next: Settings = { ...current };
  for (const [key, value] of Object.entries(parsed.data)) {
    // An absent (undefined) key leaves the current value.
    if (value !== undefined) Object.assign(next, { [key]: value });
  }
  return { ok: true, settings: next };
}

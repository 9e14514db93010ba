import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { Settings } from "../../../../shared/settings.js";

/** What the settings handlers use: the settings as saved, and the one way to change them. */
export interface SettingsServices {
  readonly current: Settings;
  /** Checks, saves and applies a patch; a value out of bounds is an ApiFailure on its field. */
  save(patch: Record<string, unknown>): Promise<Settings>;
}

export function settingsHandlers(
  settings: SettingsServices,
): Pick<ApiHandlers, "settings.get" | "settings.save"> {
  return {
    "settings.get": () => settings.current,
    "settings.save": (patch) => settings.save(patch),
  };
}

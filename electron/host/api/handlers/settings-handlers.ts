import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { SettingsApplier } from "../../app/settings-applier.js";

/** What the settings handlers use: the settings as saved, and the one way to change them. */
export type SettingsServices = Pick<SettingsApplier, "current" | "save">;

export function settingsHandlers(
  settings: SettingsServices,
): Pick<ApiHandlers, "settings.get" | "settings.save"> {
  return {
    "settings.get": () => settings.current,
    "settings.save": (patch) => settings.save(patch),
  };
}

// Settings in words: the Audit page names a changed setting as the Sandbox page does, with
// its values as a person reads them. Plain JS so that the renderer's TypeScript program never
// sees Node types.
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../../shared/settings.ts";
import { summaryOf } from "./audit.ts";
import { SETTING_WORDS, settingLabel, settingsChangeText } from "./setting-labels.ts";

describe("setting labels", () => {
  it("names every setting in words", () => {
    for (const key of Object.keys(DEFAULT_SETTINGS)) {
      expect(SETTING_WORDS[key]?.label, key).toBeTruthy();
      expect(settingLabel(key)).not.toBe(key);
    }
  });

  it("a settings entry reads 'Isolation: Standard → Strong', never the keys", () => {
    const entry = {
      seq: 1,
      ts: "2026-12-04T19:00:00.000Z",
      prev: "0".repeat(64),
      kind: "settings_changed",
      changes: {
        sandboxRuntime: { from: "runc", to: "runsc" },
        deadlineSeconds: { from: 50, to: 30 },
        sandboxPreload: { from: true, to: false },
        auditRetentionDays: { from: 30, to: 10_000 },
      },
    };
    expect(summaryOf(entry)).toBe(
      "Isolation: Standard → Strong, Time limit per run: 50 s → 30 s, Load data libraries ahead: On → Off, Keep the audit log: 30 days → 10,000 days",
    );
    // A key this UI does not know (a newer host) is shown as it is.
    expect(settingsChangeText({ newThing: { from: 1, to: 2 } })).toBe("newThing: 1 → 2");
  });
});

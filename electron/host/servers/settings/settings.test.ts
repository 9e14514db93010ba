import { describe, expect, it } from "vitest";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { dispatchApi } from "../../api/api-dispatcher.js";
import { applySettingsPatch, DEFAULT_SETTINGS } from "./settings.js";

describe("settings", () => {
  it("applies values within bounds", () => {
    const result = applySettingsPatch(DEFAULT_SETTINGS, { deadlineSeconds: 30, httpEnabled: true });
    expect(result).toEqual({
      ok: true,
      settings: { ...DEFAULT_SETTINGS, deadlineSeconds: 30, httpEnabled: true },
    });
  });

  it("refuses values out of bounds with an error on the field, applying nothing", () => {
    const result = applySettingsPatch(DEFAULT_SETTINGS, {
      deadlineSeconds: 30,
      maxCallsPerRun: 0,
      warmPoolSize: 1.5,
      colour: "red",
    });
    expect(result).toEqual({
      ok: false,
      errors: [
        { path: ["maxCallsPerRun"], message: "must be from 1 to 10000" },
        { path: ["warmPoolSize"], message: "must be a whole number" },
        { path: ["colour"], message: 'unknown setting "colour"' },
      ],
    });
  });

  it("caps the audit log's total size at 256 MiB by default, and refuses less than 16 MiB", () => {
    expect(DEFAULT_SETTINGS.auditMaxTotalMiB).toBe(256);
    expect(applySettingsPatch(DEFAULT_SETTINGS, { auditMaxTotalMiB: 8 })).toEqual({
      ok: false,
      errors: [{ path: ["auditMaxTotalMiB"], message: "must be from 16 to 1048576" }],
    });
    expect(applySettingsPatch(DEFAULT_SETTINGS, { auditMaxTotalMiB: 16 })).toMatchObject({
      ok: true,
      settings: { auditMaxTotalMiB: 16 },
    });
  });

  it("settings.save refuses a bad patch before any handler runs, naming the field and the bound", async () => {
    // The API checks the same schema as the host: no handler is needed to get the refusal.
    const response = await dispatchApi({} as ApiHandlers, "settings.save", {
      maxCallsPerRun: 0,
      httpEnabled: "yes",
      colour: "red",
    } as never);
    expect(response).toMatchObject({
      ok: false,
      error: {
        code: "invalid",
        fields: [
          { path: ["maxCallsPerRun"], message: "must be from 1 to 10000" },
          { path: ["httpEnabled"], message: "must be true or false" },
          { path: [], message: 'unknown setting "colour"' },
        ],
      },
    });
  });
});

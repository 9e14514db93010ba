import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadHostState } from "../app/host-state.js";
import {
  SETTINGS_FILE,
  SettingsApplier,
  type SettingsSubsystems,
} from "../app/settings-applier.js";
import {
  parseSettingsFile,
  RETIRED_DEFAULTS,
  SETTINGS_FILE_VERSION,
  settingsFileText,
} from "./settings-file.js";
import { DEFAULT_SETTINGS } from "./settings.js";

/** A file as versions before the sparse format wrote it: every setting, the defaults of then. */
const OLD_FULL_FILE = {
  ...DEFAULT_SETTINGS,
  serverConcurrency: 16,
  descriptionBudgetChars: 12_000,
  // Settings this round added were absent from those files.
  warmPoolMaxSize: undefined,
  warmPoolIdleSeconds: undefined,
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "settings-file-"));
  dirs.push(dir);
  return dir;
}

const quiet: SettingsSubsystems = {
  http: { apply: () => Promise.resolve() },
  gate: { setCap: () => undefined },
  sandbox: {
    setPoolSize: () => undefined,
    setPoolGrowth: () => undefined,
    setDeadlineSeconds: () => undefined,
    checkRuntime: () => Promise.resolve(),
    setRuntime: () => undefined,
    setPreload: () => undefined,
  },
  audit: { configure: () => undefined },
  engine: { updateSettings: () => undefined },
  approvals: { setTimeoutSeconds: () => undefined },
};

describe("settings file", () => {
  it("a file with a bad value is invalid, not half-read", () => {
    expect(parseSettingsFile('{"deadlineSeconds": 900}')).toEqual({
      ok: false,
      problem: "settings.json: deadlineSeconds: must be from 1 to 90",
    });
    expect(parseSettingsFile("{}")).toEqual({
      ok: true,
      value: { settings: DEFAULT_SETTINGS, chosen: {} },
    });
    expect(parseSettingsFile('{"version": 3}')).toMatchObject({ ok: false });
  });

  it("an old full file with the old defaults 16 and 12,000 gets the new defaults at start", async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, SETTINGS_FILE), JSON.stringify(OLD_FULL_FILE, null, 2));
    const state = await loadHostState(dir, undefined, undefined);
    expect(state.problems).toEqual([]);
    expect(state.settings).toEqual(DEFAULT_SETTINGS);
    expect(state.settings.serverConcurrency).toBe(64);
    expect(state.settings.descriptionBudgetChars).toBe(3_000);
    expect(state.chosenSettings).toEqual({});
  });

  it("keeps a value the user chose in an old file, and every retired default is not today's", () => {
    const text = JSON.stringify({ ...OLD_FULL_FILE, serverConcurrency: 32, deadlineSeconds: 45 });
    expect(parseSettingsFile(text)).toEqual({
      ok: true,
      value: {
        settings: { ...DEFAULT_SETTINGS, serverConcurrency: 32, deadlineSeconds: 45 },
        chosen: { serverConcurrency: 32, deadlineSeconds: 45 },
      },
    });
    for (const [key, retired] of Object.entries(RETIRED_DEFAULTS)) {
      expect(retired).not.toContain(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS]);
    }
  });

  it("in the new format, a chosen value equal to an old default is kept", () => {
    const text = settingsFileText({ serverConcurrency: 16 });
    expect(JSON.parse(text)).toEqual({ version: SETTINGS_FILE_VERSION, serverConcurrency: 16 });
    expect(parseSettingsFile(text)).toMatchObject({
      ok: true,
      value: { settings: { serverConcurrency: 16 }, chosen: { serverConcurrency: 16 } },
    });
  });

  it("a save writes only what the user set, and what was chosen before stays", async () => {
    const dir = dataDir();
    const file = path.join(dir, SETTINGS_FILE);
    writeFileSync(file, JSON.stringify({ ...OLD_FULL_FILE, maxCallsPerRun: 500 }));
    const state = await loadHostState(dir, undefined, undefined);
    const applier = new SettingsApplier(
      { settings: state.settings, chosen: state.chosenSettings },
      { dataDir: dir, subsystems: quiet, changed: () => undefined },
    );
    await applier.save({ deadlineSeconds: 45 });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: SETTINGS_FILE_VERSION,
      maxCallsPerRun: 500,
      deadlineSeconds: 45,
    });
    // The user's choice of the old default, made after the upgrade, is theirs and stays.
    await applier.save({ serverConcurrency: 16 });
    const again = await loadHostState(dir, undefined, undefined);
    expect(again.settings).toEqual({
      ...DEFAULT_SETTINGS,
      maxCallsPerRun: 500,
      deadlineSeconds: 45,
      serverConcurrency: 16,
    });
  });
});

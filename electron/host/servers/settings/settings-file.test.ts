import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadHostState } from "../../app/host-state.js";
import { SettingsApplier, type SettingsSubsystems } from "../../app/settings-applier.js";
import { SETTINGS_FILE } from "./settings-file.js";
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
    setEngine: () => Promise.resolve(),
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

/**
 * Full files as earlier versions wrote them for a user who never chose anything: each holds
 * that version's defaults (from the history of SETTINGS_BOUNDS and the limits it names).
 */
const EARLIER_VERSIONS: Record<string, Record<string, unknown>> = {
  // The first version: per-server concurrency 8, deadline 90, description budget 12,000.
  first: {
    deadlineSeconds: 90,
    maxCallsPerRun: 200,
    descriptionBudgetChars: 12_000,
    warmPoolSize: 1,
    serverConcurrency: 8,
    maxConcurrentRuns: 4,
    auditRetentionDays: 30,
    auditMaxFileMiB: 16,
    httpEnabled: false,
    httpPort: 7717,
  },
  // The deadline went to 50, the audit total cap, runtime and "ask first" wait came; still 8.
  "deadline 50": {
    deadlineSeconds: 50,
    maxCallsPerRun: 200,
    descriptionBudgetChars: 12_000,
    warmPoolSize: 1,
    serverConcurrency: 8,
    maxConcurrentRuns: 4,
    auditRetentionDays: 30,
    auditMaxFileMiB: 16,
    auditMaxTotalMiB: 256,
    httpEnabled: false,
    httpPort: 7717,
    sandboxRuntime: "runc",
    approvalTimeoutSeconds: 60,
  },
  // Per-server concurrency 16, the last fixed default before the adaptive slots.
  "concurrency 16": {
    deadlineSeconds: 50,
    maxCallsPerRun: 200,
    descriptionBudgetChars: 12_000,
    warmPoolSize: 1,
    serverConcurrency: 16,
    maxConcurrentRuns: 4,
    auditRetentionDays: 30,
    auditMaxFileMiB: 16,
    auditMaxTotalMiB: 256,
    httpEnabled: false,
    httpPort: 7717,
    sandboxRuntime: "runc",
    approvalTimeoutSeconds: 60,
  },
};

describe("settings files of earlier versions", () => {
  for (const [name, file] of Object.entries(EARLIER_VERSIONS)) {
    it(`the ${name} version's defaults become today's (slots grow to 64, not a fixed cap)`, async () => {
      const dir = dataDir();
      writeFileSync(path.join(dir, SETTINGS_FILE), JSON.stringify(file, null, 2));
      const state = await loadHostState(dir, undefined, undefined);
      expect(state.problems).toEqual([]);
      expect(state.settings).toEqual(DEFAULT_SETTINGS);
      expect(state.settings.serverConcurrency).toBe(64);
      expect(state.chosenSettings).toEqual({});
    });
  }

  it("a value the user chose in an old file is kept, 8 and 16 too once in the new format", () => {
    // 12 was never a default: a fixed cap the user set, kept as one.
    const old = JSON.stringify({ ...EARLIER_VERSIONS.first, serverConcurrency: 12 });
    expect(parseSettingsFile(old)).toMatchObject({
      ok: true,
      value: { settings: { serverConcurrency: 12, deadlineSeconds: 50 } },
    });
    for (const cap of [8, 16]) {
      expect(parseSettingsFile(settingsFileText({ serverConcurrency: cap }))).toMatchObject({
        ok: true,
        value: { settings: { serverConcurrency: cap }, chosen: { serverConcurrency: cap } },
      });
    }
  });

  it("nothing saved is lost: every chosen value of an old file survives its first save", async () => {
    const chosen = {
      deadlineSeconds: 30,
      maxCallsPerRun: 400,
      descriptionBudgetChars: 6_000,
      warmPoolSize: 3,
      serverConcurrency: 4,
      maxConcurrentRuns: 6,
      auditRetentionDays: 90,
      auditMaxFileMiB: 32,
      auditMaxTotalMiB: 512,
      httpEnabled: true,
      httpPort: 8000,
      sandboxRuntime: "runsc",
      approvalTimeoutSeconds: 120,
    } as const;
    const dir = dataDir();
    const file = path.join(dir, SETTINGS_FILE);
    writeFileSync(file, JSON.stringify(chosen));
    const state = await loadHostState(dir, undefined, undefined);
    expect(state.problems).toEqual([]);
    expect(state.chosenSettings).toEqual(chosen);
    const applier = new SettingsApplier(
      { settings: state.settings, chosen: state.chosenSettings },
      { dataDir: dir, subsystems: quiet, changed: () => undefined },
    );
    await applier.save({ sandboxPreload: false });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: SETTINGS_FILE_VERSION,
      ...chosen,
      sandboxPreload: false,
    });
  });

  it("a bad old file gets an error naming the setting, is kept aside, and defaults apply", async () => {
    for (const [bad, named] of [
      [{ serverConcurrency: 0 }, "serverConcurrency: must be from 1 to 64"],
      [{ serverConcurrency: "8" }, "serverConcurrency: must be a whole number"],
      [{ concurrency: 8 }, 'unknown setting "concurrency"'],
    ] as const) {
      const dir = dataDir();
      const file = path.join(dir, SETTINGS_FILE);
      const text = JSON.stringify({ ...EARLIER_VERSIONS.first, ...bad });
      writeFileSync(file, text);
      const state = await loadHostState(dir, undefined, undefined);
      expect(state.settings).toEqual(DEFAULT_SETTINGS);
      expect(state.problems).toHaveLength(1);
      expect(state.problems[0]).toContain(named);
      const keptAs = /kept as (\S+);/.exec(state.problems[0] ?? "")?.[1] ?? "";
      expect(readFileSync(keptAs, "utf8")).toBe(text);
    }
    expect(parseSettingsFile("[8]")).toEqual({
      ok: false,
      problem: "settings.json must hold an object",
    });
  });
});

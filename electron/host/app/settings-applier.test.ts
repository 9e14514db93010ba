import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type Settings } from "../servers/settings/settings.js";
import {
  SETTINGS_WITH_REACTIONS,
  SettingsApplier,
  type SettingsSubsystems,
} from "./settings-applier.js";
import { SETTINGS_FILE } from "../servers/settings/settings-file.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function applier(httpFails = false, engineRuntimes = ["runc", "runsc"]) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "codemode-settings-"));
  dirs.push(dataDir);
  const told: string[] = [];
  const subsystems: SettingsSubsystems = {
    http: {
      apply: (s) => {
        told.push(`http ${s.httpEnabled}:${s.httpPort}`);
        return httpFails ? Promise.reject(new Error("EADDRINUSE")) : Promise.resolve();
      },
    },
    gate: { setCap: (cap) => told.push(`gate ${cap}`) },
    sandbox: {
      setPoolSize: (size) => told.push(`pool ${size}`),
      setPoolGrowth: (growth) => told.push(`growth ${growth.maxSize}/${growth.idleMs}`),
      setDeadlineSeconds: (seconds) => told.push(`deadline ${seconds}`),
      checkRuntime: (runtime) =>
        engineRuntimes.includes(runtime)
          ? Promise.resolve()
          : Promise.reject(new Error(`the Docker engine has no runtime "${runtime}"`)),
      setRuntime: (runtime) => told.push(`runtime ${runtime}`),
      setPreload: (preload) => told.push(`preload ${preload}`),
      setEngine: (engine) => Promise.resolve(told.push(`engine ${engine}`)),
    },
    audit: { configure: (o) => told.push(`audit ${o.retentionDays}`) },
    engine: { updateSettings: (o) => told.push(`engine ${o.maxCallsPerRun}`) },
    approvals: { setTimeoutSeconds: (seconds) => told.push(`approvals ${seconds}`) },
  };
  const changed: Settings[] = [];
  const made = new SettingsApplier(DEFAULT_SETTINGS, {
    dataDir,
    subsystems,
    changed: (next) => changed.push(next),
  });
  return { made, told, changed, file: path.join(dataDir, SETTINGS_FILE) };
}

describe("SettingsApplier", () => {
  it("knows a subsystem for every setting", () => {
    expect([...SETTINGS_WITH_REACTIONS].sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
  });

  it("keeps an engine chosen with the CLI while the app runs when the app saves a setting", async () => {
    const { made, file } = applier();
    await made.save({ maxCallsPerRun: 50 });
    // As `codemode engine use colima-work` writes it (saveEngineChoice), behind the app's back.
    const saved = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...saved, sandboxEngine: "colima-work" }));
    await made.save({ maxCallsPerRun: 100 });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      maxCallsPerRun: 100,
      sandboxEngine: "colima-work",
    });
    // It applies from the next start, not to the running app.
    expect(made.current.sandboxEngine).toBe(DEFAULT_SETTINGS.sandboxEngine);
    // Taken back the same way ("" is the default), it stays taken back.
    const { sandboxEngine: _dropped, ...rest } = JSON.parse(readFileSync(file, "utf8")) as Record<
      string,
      unknown
    >;
    writeFileSync(file, JSON.stringify(rest));
    await made.save({ maxCallsPerRun: 60 });
    expect(JSON.parse(readFileSync(file, "utf8"))).not.toHaveProperty("sandboxEngine");
  });

  it("caps the pool's growth by the concurrent-runs limit, whichever changed", async () => {
    const { made, told } = applier();
    await made.save({ warmPoolMaxSize: 8 });
    await made.save({ maxConcurrentRuns: 2 });
    await made.save({ warmPoolIdleSeconds: 30 });
    expect(told).toEqual(["growth 4/60000", "gate 2", "growth 2/60000", "growth 2/30000"]);
  });

  it("tells only the subsystems whose settings changed, after saving the file", async () => {
    const { made, told, changed, file } = applier();
    await made.save({ warmPoolSize: 3, deadlineSeconds: 45 });
    expect(told).toEqual(["pool 3", "deadline 45"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ warmPoolSize: 3 });
    expect(changed).toHaveLength(1);
    await made.save({ warmPoolSize: 3 });
    expect(changed).toHaveLength(1);
  });

  it("tells the sandbox when preloading is turned off or on", async () => {
    const { made, told } = applier();
    expect(made.current.sandboxPreload).toBe(true); // on by default
    await made.save({ sandboxPreload: false });
    await made.save({ sandboxPreload: true });
    expect(told).toEqual(["preload false", "preload true"]);
  });

  it("tells the approvals of a new ask-first time", async () => {
    const { made, told } = applier();
    await made.save({ approvalTimeoutSeconds: 5 });
    expect(told).toEqual(["approvals 5"]);
  });

  it("saves nothing when MCP over HTTP cannot start on the port", async () => {
    const { made, told, file } = applier(true);
    await expect(made.save({ httpEnabled: true, maxCallsPerRun: 7 })).rejects.toThrow(
      /could not start on port/,
    );
    expect(told).toEqual([`http true:${DEFAULT_SETTINGS.httpPort}`]);
    expect(made.current).toBe(DEFAULT_SETTINGS);
    expect(() => readFileSync(file)).toThrow();
  });

  it("switches the sandbox runtime, and refuses one the engine lacks before saving", async () => {
    const { made, told } = applier();
    await made.save({ sandboxRuntime: "runsc" });
    expect(told).toEqual(["runtime runsc"]);
    expect(made.current.sandboxRuntime).toBe("runsc");

    const without = applier(false, ["runc"]);
    await expect(without.made.save({ sandboxRuntime: "runsc", warmPoolSize: 3 })).rejects.toThrow(
      /sandbox runtime: the Docker engine has no runtime "runsc"/,
    );
    expect(without.told).toEqual([]);
    expect(without.made.current).toBe(DEFAULT_SETTINGS);
    expect(() => readFileSync(without.file)).toThrow();
    await expect(without.made.save({ sandboxRuntime: "kata" })).rejects.toThrow(
      /sandboxRuntime: must be one of runc, runsc/,
    );
  });
});

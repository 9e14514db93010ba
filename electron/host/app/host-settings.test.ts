import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { DEFAULT_SETTINGS } from "../servers/settings/settings.js";
import { EventHub } from "../api/event-hub.js";
import { hostSettingsApplier, sandboxSettings } from "./host-settings.js";
import { type SettingsSubsystems } from "./settings-applier.js";
import { SETTINGS_FILE } from "../servers/settings/settings-file.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("host settings", () => {
  it("the sandbox starts from the settings, its pool growth capped by the concurrent runs", () => {
    expect(
      sandboxSettings({
        ...DEFAULT_SETTINGS,
        warmPoolSize: 2,
        warmPoolMaxSize: 8,
        warmPoolIdleSeconds: 30,
        maxConcurrentRuns: 3,
        deadlineSeconds: 20,
        sandboxRuntime: "runsc",
        sandboxPreload: false,
        sandboxEngine: "podman",
      }),
    ).toEqual({
      poolSize: 2,
      poolGrowth: { maxSize: 3, idleMs: 30_000 },
      deadlineSeconds: 20,
      runtime: "runsc",
      preload: false,
      engine: "podman",
    });
  });

  it("a saved change reaches its subsystem, the audit log and the event bus, in that order", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codemode-host-settings-"));
    dirs.push(dataDir);
    const told: string[] = [];
    const recorded: AuditEntryInput[] = [];
    const noop = () => undefined;
    const subsystems: SettingsSubsystems = {
      http: { apply: () => Promise.resolve() },
      gate: { setCap: (cap) => told.push(`gate ${cap}`) },
      sandbox: {
        setPoolSize: noop,
        setPoolGrowth: noop,
        setDeadlineSeconds: noop,
        checkRuntime: () => Promise.resolve(),
        setRuntime: noop,
        setPreload: (preload) => told.push(`preload ${preload}`),
        setEngine: () => Promise.resolve(),
      },
      audit: { configure: noop },
      engine: { updateSettings: noop },
      approvals: { setTimeoutSeconds: noop },
    };
    const events = new EventHub();
    events.on("settings.changed", (next) => told.push(`event preload ${next.sandboxPreload}`));
    const applier = hostSettingsApplier({
      saved: { settings: DEFAULT_SETTINGS, chosen: {} },
      dataDir,
      subsystems,
      record: (entry) => {
        recorded.push(entry);
        told.push(`record ${entry.kind}`);
      },
      events,
    });
    await applier.save({ sandboxPreload: false });
    expect(told).toEqual(["preload false", "record settings_changed", "event preload false"]);
    expect(recorded).toEqual([
      { kind: "settings_changed", changes: { sandboxPreload: { from: true, to: false } } },
    ]);
    expect(JSON.parse(readFileSync(path.join(dataDir, SETTINGS_FILE), "utf8"))).toMatchObject({
      sandboxPreload: false,
    });
    // Nothing changed: nothing recorded, nothing told.
    await applier.save({ sandboxPreload: false });
    expect(recorded).toHaveLength(1);
  });
});

// A data directory that another user owns or can write is not the user's own.
// Each case plants what an attacker could and starts the real daemon on it: the daemon must
// refuse at start, with an error naming the path, its owner, its mode and the fix, and must
// not run anything a planted servers.json names. Tests run as root, so "another user" is
// made with chown to nobody (65534).

import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  cleanUpHosts,
  makeHome,
  startDaemon,
  writeServers,
} from "../test-support/daemon.js";

const NOBODY = 65_534;
const made: string[] = [];

beforeAll(() => {
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts();
  const { rmSync } = await import("node:fs");
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the daemon on `home` and returns what it said when it refused. A daemon that
 * starts instead is stopped and the test fails: that is the attack succeeding.
 */
async function refusal(home: string): Promise<string> {
  let daemon;
  try {
    daemon = await startDaemon(home, { readyTimeoutMs: 30_000 });
  } catch (error) {
    return (error as Error).message;
  }
  await daemon.stop();
  throw new Error(`codemode daemon started on an untrusted data directory:\n${daemon.stderr()}`);
}

/** A servers.json whose one server, if ever started, leaves `marker` behind. */
function plantServers(home: string, marker: string): void {
  writeServers(home, {
    planted: { command: "/bin/sh", args: ["-c", `echo ran > '${marker}'; sleep 5`] },
  });
}

function markerPath(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-trust-marker-"));
  made.push(dir);
  return path.join(dir, "planted-server-ran");
}

describe("the daemon refuses a data directory that is not the user's own", () => {
  it("refuses a data directory owned by another user, and runs nothing its servers.json names", async () => {
    const home = makeHome();
    const marker = markerPath();
    plantServers(home, marker);
    chownSync(home, NOBODY, NOBODY);
    const said = await refusal(home);
    expect(said).toContain(`${home} (owner uid ${NOBODY}, mode 0700)`);
    expect(said).toContain("belongs to another user");
    expect(said).toContain(`chown 0 '${home}'`);
    expect(said).toContain('"code":1');
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a data directory others can write (mode 0777)", async () => {
    const home = makeHome();
    const marker = markerPath();
    plantServers(home, marker);
    chmodSync(home, 0o777);
    const said = await refusal(home);
    expect(said).toContain(`${home} (owner uid 0, mode 0777)`);
    expect(said).toContain("can be written by other users");
    expect(said).toContain(`chmod go-w '${home}'`);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a servers.json planted by another user in the user's own directory", async () => {
    const home = makeHome();
    const marker = markerPath();
    plantServers(home, marker);
    const file = path.join(home, "servers.json");
    chownSync(file, NOBODY, NOBODY);
    const said = await refusal(home);
    expect(said).toContain(`${file} (owner uid ${NOBODY}, mode 0644)`);
    expect(said).toContain(`chown 0 '${file}'`);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a settings.json others can write", async () => {
    const home = makeHome();
    const file = path.join(home, "settings.json");
    writeFileSync(file, "{}\n");
    chmodSync(file, 0o666);
    const said = await refusal(home);
    expect(said).toContain(`${file} (owner uid 0, mode 0666)`);
    expect(said).toContain(`chmod go-w '${file}'`);
  });

  it("refuses a token file owned by another user (who would know it)", async () => {
    const home = makeHome();
    const file = path.join(home, "token");
    writeFileSync(file, "ab".repeat(32) + "\n", { mode: 0o600 });
    chownSync(file, NOBODY, NOBODY);
    const said = await refusal(home);
    expect(said).toContain(`${file} (owner uid ${NOBODY}, mode 0600)`);
    expect(said).toContain("belongs to another user");
  });

  it("refuses a data directory inside a directory others can write and is not sticky", async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), "codemode-trust-parent-"));
    made.push(parent);
    chmodSync(parent, 0o777);
    const home = path.join(parent, "home");
    mkdirSync(home, { mode: 0o700 });
    const said = await refusal(home);
    expect(said).toContain(`${parent} (owner uid 0, mode 0777)`);
    expect(said).toContain("could replace the data directory");
    expect(said).toContain(`chmod go-w '${parent}'`);
  });
});

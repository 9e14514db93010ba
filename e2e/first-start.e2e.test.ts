// A new user's first commands, on a machine where the Electron binary cannot be fetched (what
// our CI machines are): `npm install` must not fail, `npm start` must run the app headless and
// say why, and the CLI must answer a wrong file name in one line.
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { electronBinary, whyNoElectron } from "../scripts/electron-runnable.mjs";
import {
  assertHostBuilt,
  CODEMODE_BIN,
  hostEnv,
  makeHome,
  cleanUpHosts,
} from "../test-support/daemon.js";
import { repoRoot } from "../test-support/processes.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";

afterAll(async () => {
  await cleanUpHosts();
  removeTempDirs();
});

describe("first start", () => {
  it("says why the desktop app cannot open: no binary, or no display on Linux", () => {
    expect(whyNoElectron({ binary: undefined, env: {}, platform: "darwin" })).toMatch(
      /Electron binary is not installed/,
    );
    expect(whyNoElectron({ binary: "/x/electron", env: {}, platform: "linux" })).toMatch(
      /no display/,
    );
    expect(
      whyNoElectron({ binary: "/x/electron", env: { DISPLAY: ":0" }, platform: "linux" }),
    ).toBeNull();
    expect(whyNoElectron({ binary: "/x/electron", env: {}, platform: "darwin" })).toBeNull();
  });

  it("the install's Electron step succeeds with one line when the binary cannot be downloaded", () => {
    const result = spawnSync(
      process.execPath,
      [path.join(repoRoot, "scripts", "electron-binary.mjs")],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: tempDir("codemode-install-home-"),
          // Nothing listens there, so the download fails at once, as offline or behind a proxy.
          ELECTRON_MIRROR: "http://127.0.0.1:9/",
          electron_config_cache: tempDir("codemode-electron-cache-"),
          // An empty place to look for an installed binary, so one a developer has is not used.
          ELECTRON_OVERRIDE_DIST_PATH: tempDir("codemode-electron-dist-"),
        },
      },
    );
    expect(result.status).toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^codemode: could not download the Electron binary \(.*ECONNREFUSED.*\); npm start will run Code Mode headless/,
    );
  });

  it("npm start without Electron runs the app headless, says why in one line and prints the UI's link", async () => {
    assertHostBuilt();
    const home = makeHome("codemode-start-");
    // What `npm start` runs after the build; no DISPLAY, and the binary as this machine has it.
    const child = spawn(process.execPath, [path.join(repoRoot, "scripts", "start.mjs")], {
      cwd: repoRoot,
      env: hostEnv(home, { CODEMODE_NO_BROWSER: "1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => resolve(code)),
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!stdout.includes("\n")) {
        if (Date.now() > deadline) throw new Error(`no URL within 30 s:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = stdout.split("\n")[0]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#ticket=[0-9a-f]{64}$/);
      // stderr is another pipe than stdout: its line, written first, may be read after the URL.
      await until(() => stderr.includes("\n"), "the daemon's first stderr line");
      const first = stderr.split("\n")[0]!;
      const why = whyNoElectron({ binary: electronBinary(), env: {}, platform: process.platform });
      expect(first).toBe(
        `codemode: cannot open the desktop app: ${why}; running it headless (codemode daemon --ui) with its UI in your browser.`,
      );
      expect(stderr).not.toContain("Launched");
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });

  it("codemode run on a missing file is a one-line error (a usage error: exit 2)", () => {
    const result = spawnSync(process.execPath, [CODEMODE_BIN, "run", "missing.py"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: hostEnv(makeHome("codemode-run-missing-")),
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("codemode run: cannot read missing.py: no such file\n");
  });
});

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test-support/wait.js";
import { defaultStartApp, findStartCommand } from "./start-app.js";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";

afterEach(removeTempDirs);

describe("how the shim starts Code Mode", () => {
  it("starts the app named by CODEMODE_APP, detached, with CODEMODE_HOME passed through", async () => {
    const dataDir = tempDir("cm-la-");
    const marker = path.join(dataDir, "started-with");
    const app = path.join(dataDir, "fake-app.sh");
    await writeFile(app, `#!/bin/sh\nprintf '%s' "$CODEMODE_HOME" > '${marker}'\n`, {
      mode: 0o700,
    });
    expect(defaultStartApp({ dataDir, env: { ...process.env, CODEMODE_APP: app } })).toEqual({
      started: app,
      tried: [{ file: app, exists: true }],
      logFile: path.join(dataDir, "app.log"),
    });
    let seen = "";
    await until(() => {
      void readFile(marker, "utf8").then(
        (content) => (seen = content),
        () => undefined,
      );
      return seen !== "";
    }, "the fake app to run");
    expect(seen).toBe(dataDir);
  });

  it("finds `codemode daemon` of the package it sits in, only when it is built", async () => {
    const root = tempDir("cm-la-");
    await writeFile(path.join(root, "package.json"), '{"name":"codemode"}');
    await mkdir(path.join(root, "bin"));
    await writeFile(path.join(root, "bin", "codemode.js"), "");
    const from = path.join(root, "dist", "electron", "host", "shim");
    await mkdir(from, { recursive: true });
    expect(findStartCommand({}, from)).toBeUndefined();
    await mkdir(path.join(root, "dist", "electron", "host", "cli"), { recursive: true });
    await writeFile(path.join(root, "dist", "electron", "host", "cli", "main.js"), "");
    expect(findStartCommand({}, from)).toEqual({
      file: process.execPath,
      args: [path.join(root, "bin", "codemode.js"), "daemon"],
      description: "codemode daemon",
    });
    expect(findStartCommand({ CODEMODE_APP: "/opt/Code Mode/codemode" }, from)?.file).toBe(
      "/opt/Code Mode/codemode",
    );
  });
});

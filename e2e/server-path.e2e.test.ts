// A GUI app, or the app a client's shim starts, gets a minimal PATH: a server entry that
// runs a command from the user's own PATH (npx, uvx, docker) was not found and its tools
// vanished. The daemon runs here with PATH=/usr/bin:/bin and a HOME whose login profile
// adds the folder holding the server's command, as a user's shell profile does.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  CODEMODE_BIN,
  cleanUpHosts,
  connectShim,
  makeHome,
  startDaemon,
  writeServers,
} from "../test-support/daemon.js";
import { listsTool } from "../test-support/described-tools.js";

const MINIMAL_PATH = "/usr/bin:/bin";
const LOGIN_SHELL = "/bin/bash";
const SERVER_COMMAND = "codemode-toy-from-profile";

describe("wrapped servers get the user's login-shell PATH", () => {
  let userHome: string;
  let toolsDir: string;

  beforeAll(() => {
    assertHostBuilt();
    expect(existsSync(LOGIN_SHELL), `${LOGIN_SHELL} is needed as the login shell`).toBe(true);
    userHome = mkdtempSync(path.join(os.tmpdir(), "codemode-user-home-"));
    toolsDir = path.join(userHome, "my tools", "bin");
    mkdirSync(toolsDir, { recursive: true });
    // The server's command lives only in a folder the login profile puts on PATH.
    const command = path.join(toolsDir, SERVER_COMMAND);
    writeFileSync(command, `#!/bin/sh\nexec '${process.execPath}' '${TOY_SERVER_JS}' "$@"\n`);
    chmodSync(command, 0o755);
    writeFileSync(
      path.join(userHome, ".bash_profile"),
      `echo "welcome to this shell"\nexport PATH="$HOME/my tools/bin:$PATH"\n`,
    );
  });

  afterAll(async () => {
    await cleanUpHosts();
    rmSync(userHome, { recursive: true, force: true });
  });

  it("the daemon started with PATH=/usr/bin:/bin starts a server whose command only the login profile finds", async () => {
    const home = makeHome("codemode-path-");
    writeServers(home, { toy: { command: SERVER_COMMAND, args: [] } });
    const env = { PATH: MINIMAL_PATH, SHELL: LOGIN_SHELL, HOME: userHome };
    const daemon = await startDaemon(home, { env });
    try {
      expect(daemon.stderr()).not.toContain("did not start");
      const shim = await connectShim(home, undefined, { env: { PATH: MINIMAL_PATH } });
      const description = await shim.description();
      expect(listsTool(description, "toy", "add")).toBe(true);
      const result = await shim.run('print(await toy__add({"a": 2, "b": 3}))');
      expect(result.stdout.trim()).toBe(`{"sum":5}`);
      await shim.close();
    } finally {
      await daemon.stop();
    }
  });

  it("app.info says which PATH servers get and where each folder came from", async () => {
    const home = makeHome("codemode-path-");
    const host = await CodeModeHost.start({
      dataDir: home,
      version: "0.0.0-test",
      shimLaunch: { command: process.execPath, args: [CODEMODE_BIN, "shim"], env: {} },
      env: { CODEMODE_HOME: home, PATH: MINIMAL_PATH, SHELL: LOGIN_SHELL, HOME: userHome },
    });
    try {
      const info = await api(host, "app.info", {});
      expect(info.serverPath.shell).toBe(LOGIN_SHELL);
      expect(info.serverPath.shellProblem).toBeNull();
      expect(info.serverPath.entries[0]).toEqual({ dir: toolsDir, source: "login-shell" });
      const dirs = info.serverPath.path.split(":");
      expect(dirs).toContain("/usr/bin");
      expect(new Set(dirs).size).toBe(dirs.length);
    } finally {
      await host.stop();
    }
  });
});

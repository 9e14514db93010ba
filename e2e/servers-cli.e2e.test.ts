// `codemode servers catalog` and `codemode servers add --from-catalog` as a user runs them:
// the built CLI as a process on a temporary CODEMODE_HOME, the saved file read back, and
// the daemon started on it to show the added server really runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_LIMITS } from "../shared/limits.js";
import { SERVER_CATALOG } from "../shared/server-catalog/server-catalog.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";

function saved(home: string): Record<string, Record<string, unknown>> {
  const text = readFileSync(path.join(home, "servers.json"), "utf8");
  return (JSON.parse(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
}

describe("codemode servers (CLI)", () => {
  beforeAll(() => assertHostBuilt());
  afterAll(() => cleanUpHosts());

  it("lists the catalog as text and as JSON", async () => {
    const home = makeHome();
    const text = await runCli(home, ["servers", "catalog"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("filesystem");
    expect(text.stdout).toContain("--set folders...");
    const json = await runCli(home, ["servers", "catalog", "--json"]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { id: string }[];
    expect(listed.map((e) => e.id)).toEqual(SERVER_CATALOG.map((e) => e.id));
  });

  it("adds filesystem with two folders and github with a secret token, keeping what was there", async () => {
    const home = makeHome();
    writeServers(home, { toy: toyServer() });
    const fs = await runCli(home, [
      "servers",
      "add",
      "files",
      "--from-catalog",
      "filesystem",
      "--set",
      "folders=/srv/a",
      "--set",
      "folders=/srv/b c",
    ]);
    expect(fs.stderr).toBe("");
    expect(fs.code).toBe(0);
    expect(fs.stdout).toContain("Added files from the catalog (Filesystem)");
    // The catalog's safe default, said where it is applied.
    expect(fs.stdout).toContain(
      "Asks you first before it changes or sends anything: write_file, edit_file, create_directory, move_file",
    );

    const gh = await runCli(home, [
      "servers",
      "add",
      "gh",
      "--from-catalog",
      "github",
      "--set",
      "token=ghp_secret=with=equals",
    ]);
    expect(gh.code).toBe(0);
    expect(gh.stdout).toContain("secret: GITHUB_PERSONAL_ACCESS_TOKEN");
    expect(gh.stdout).not.toContain("ghp_secret");

    const servers = saved(home);
    expect(Object.keys(servers)).toEqual(["toy", "files", "gh"]);
    expect(servers.files).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/a", "/srv/b c"],
      env: {},
      private: true,
      ask: ["write_file", "edit_file", "create_directory", "move_file"],
    });
    expect(servers.gh).toMatchObject({
      command: "docker",
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_secret=with=equals" },
      secret: ["GITHUB_PERSONAL_ACCESS_TOKEN"],
    });
  });

  it("names what is wrong: a missing setting, an unknown key, an unknown id, a taken name", async () => {
    const home = makeHome();
    const missing = await runCli(home, [
      "servers",
      "add",
      "s",
      "--from-catalog",
      "slack",
      "--set",
      "bot-token=x",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--set team-id: Workspace ID is required");

    const unknown = await runCli(home, [
      "servers",
      "add",
      "db",
      "--from-catalog",
      "sqlite",
      "--set",
      "db-path=/tmp/x.db",
      "--set",
      "path=/tmp/y.db",
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--set path: sqlite has no setting "path": it takes db-path');

    const noId = await runCli(home, ["servers", "add", "x", "--from-catalog", "nope"]);
    expect(noId.code).toBe(1);
    expect(noId.stderr).toContain('no catalog entry "nope"; the catalog has: filesystem');

    const badSet = await runCli(home, [
      "servers",
      "add",
      "x",
      "--from-catalog",
      "time",
      "--set",
      "timezone",
    ]);
    expect(badSet.stderr).toContain('--set takes KEY=VALUE, not "timezone"');

    expect((await runCli(home, ["servers", "add", "t", "--from-catalog", "time"])).code).toBe(0);
    const taken = await runCli(home, ["servers", "add", "t", "--from-catalog", "time"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('a server named "t" already exists');

    // A name the app could not reach again (to edit, restart or remove it) is never saved.
    const long = "n".repeat(API_LIMITS.serverNameMaxChars + 1);
    const tooLong = await runCli(home, ["servers", "add", long, "--from-catalog", "time"]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain(
      `server name: Use a shorter name: at most ${API_LIMITS.serverNameMaxChars} characters`,
    );
    expect(Object.keys(saved(home))).toEqual(["t"]);
  });

  it("says so when the app is running instead of writing behind its back", async () => {
    const home = makeHome();
    writeServers(home, {});
    const daemon = await startDaemon(home);
    try {
      const result = await runCli(home, ["servers", "add", "m", "--from-catalog", "memory"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("Code Mode is running for");
      expect(result.stderr).toContain("add the server in its Servers page");
      expect(saved(home)).toEqual({});
    } finally {
      await daemon.stop();
    }
    // Once the app is gone, the same command works.
    expect((await runCli(home, ["servers", "add", "m", "--from-catalog", "memory"])).code).toBe(0);
    expect(Object.keys(saved(home))).toEqual(["m"]);
  });
});

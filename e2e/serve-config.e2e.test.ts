// `codemode serve --config`: what stops startup (with a message naming the culprit and a
// non-zero exit, before any MCP traffic), and what a good config serves.

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  assertServeBuilt,
  inlineServerCommand,
  processIsAlive,
  runJson,
  sandboxContainers,
  serveUntilExit,
  startServe,
  tempHome,
  toyEntry,
  TOY_COMMAND,
  waitForExit,
  writeConfig,
  type ServeExit,
} from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";

const fx = await dockerOrSkip();

// Last of all, after every block has closed its serve processes.
afterAll(removeTempDirs);

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// serve checks Docker and the image before it starts servers, so even the startup
// failures below need the engine to get as far as the check they prove.
describe.skipIf(!fx)("codemode serve --config and startup checks", () => {
  // Every serve process of this file uses this data directory: one label check covers all.
  const { home } = tempHome();
  const exitOf = (args: string[], env: Record<string, string> = {}): Promise<ServeExit> =>
    serveUntilExit({ home, args, env });
  /** A startup failure: status 1, nothing on stdout (no MCP traffic), the message on stderr. */
  const expectRefused = (exit: ServeExit): string => {
    expect(exit.code, exit.stderr).toBe(1);
    expect(exit.stdout).toBe("");
    return exit.stderr;
  };

  beforeAll(() => {
    assertToyServerBuilt();
    assertServeBuilt();
  });

  afterAll(async () => {
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
  });

  it("config errors name the entry and key", async () => {
    const config = writeConfig({
      remote: { url: "http://127.0.0.1:9/mcp" },
      hosted: { command: "x", headers: { Authorization: "Bearer t" } },
      sse: { type: "sse", command: "x" },
      odd: { command: "x", cwd: "/tmp" },
      fine: toyEntry(),
    });
    const stderr = expectRefused(await exitOf(["--config", config]));
    expect(stderr).toContain(
      `${config}: mcpServers.remote.url: server "remote": "url" is not supported: only stdio servers`,
    );
    expect(stderr).toContain(`${config}: mcpServers.hosted.headers: server "hosted": "headers"`);
    expect(stderr).toContain(`${config}: mcpServers.sse.type: server "sse": type "sse"`);
    expect(stderr).toContain(`${config}: mcpServers.odd.cwd: server "odd": unknown key "cwd"`);
    expect(stderr).not.toContain("mcpServers.fine");
  });

  it("server names must be unique words", async () => {
    const entry = JSON.stringify(toyEntry());
    const config = writeConfig(
      {},
      `{"mcpServers": {"dup": ${entry}, "dup": ${entry}, "two words": ${entry}, "": ${entry}, "naïve": ${entry}}}`,
    );
    const stderr = expectRefused(await exitOf(["--config", config]));
    expect(stderr).toContain('server name "dup" is used more than once');
    expect(stderr).toContain(
      'server name "two words" may only hold ASCII letters, digits, "_" and "-"',
    );
    expect(stderr).toContain("a server name is empty");
    expect(stderr).toContain('server name "naïve" may only hold ASCII letters');
  });

  it("config excludes single-server options", async () => {
    const config = writeConfig({ toy: toyEntry() });
    const [allow, several, command] = await Promise.all([
      exitOf(["--config", config, "--allow", "add"]),
      exitOf(["--private", "x", "--config", config, "--env", "PATH"]),
      exitOf(["--config", config, "--", ...TOY_COMMAND]),
    ]);
    expect(expectRefused(allow)).toContain("--config cannot be combined with --allow");
    expect(expectRefused(several)).toContain("--config cannot be combined with --private, --env");
    expect(expectRefused(command)).toContain(
      "--config cannot be combined with a server command after --",
    );
  });

  it("labels must name kept tools", async () => {
    const inConfig = writeConfig({ s: toyEntry({}, { allow: ["add"], private: ["echo"] }) });
    const [typo, notAllowed, leftOut, allowTypo, config] = await Promise.all([
      exitOf(["--private", "read_secrt", "--", ...TOY_COMMAND]),
      exitOf(["--allow", "add", "--private", "echo", "--", ...TOY_COMMAND]),
      exitOf(["--private", "deep", "--", ...TOY_COMMAND]),
      exitOf(["--allow", "ad", "--", ...TOY_COMMAND]),
      exitOf(["--config", inConfig]),
    ]);
    expect(expectRefused(typo)).toContain(
      'Server "server": private label "read_secrt" names no kept tool: the server lists no such tool.',
    );
    expect(expectRefused(notAllowed)).toContain(
      `private label "echo" names no kept tool: it is not on the server's allow list.`,
    );
    expect(expectRefused(leftOut)).toMatch(
      /private label "deep" names no kept tool: it was left out: its input schema is nested deeper than 32 levels/,
    );
    expect(expectRefused(allowTypo)).toContain(
      'Server "server": allow names tool "ad", but the server lists no such tool.',
    );
    expect(expectRefused(config)).toContain(
      'mcpServers.s.private.0: server "s": private tool "echo" is not in "allow"',
    );
  });

  it("a name clash across servers stops startup", async () => {
    // "x-y" and "x_y" are both valid server names, and both prefix their tools with x_y__.
    const config = writeConfig({
      "x-y": toyEntry({}, { allow: ["add"] }),
      x_y: toyEntry({}, { allow: ["add"] }),
    });
    expect(expectRefused(await exitOf(["--config", config]))).toContain(
      'Two tools would both be called "x_y__add" in Python: tool "add" of server "x-y" and ' +
        'tool "add" of server "x_y". Leave one out with allow.',
    );
  });

  it("a clash through the separator stops startup", async () => {
    // Server `a`'s tool `b__add` and server `a__b`'s tool `add` are both `a__b__add`.
    const config = writeConfig({
      a: toyEntry({ TOY_TOOL_PREFIX: "b__" }, { allow: ["b__add"] }),
      a__b: toyEntry({}, { allow: ["add"] }),
    });
    expect(expectRefused(await exitOf(["--config", config]))).toContain(
      'Two tools would both be called "a__b__add" in Python: tool "b__add" of server "a" and ' +
        'tool "add" of server "a__b".',
    );
  });

  it("a failing entry closes the others", async () => {
    // `first` is the toy server, its pid written by the shell that execs it. The toy leaves
    // when its stdin ends, which serve's own exit would also cause, so `lingering` is a
    // server that, like many real ones, stays after its stdin ends: only serve closing it
    // (the SDK's close ends with signals) stops it. `second` fails two seconds in, when
    // both are up.
    const dir = tempDir("codemode-pid-");
    const toyPid = path.join(dir, "first.pid");
    const lingerPid = path.join(dir, "lingering.pid");
    const [command, ...args] = inlineServerCommand(
      '[{ name: "ping", inputSchema: { type: "object" } }]',
      { lingerAfterStdinEnd: true },
    );
    const config = writeConfig({
      first: {
        command: "/bin/sh",
        args: ["-c", 'echo $$ > "$0"; exec "$1" "$2"', toyPid, ...TOY_COMMAND],
      },
      lingering: { command, args, env: { INLINE_PID_FILE: lingerPid } },
      second: toyEntry({ TOY_FAIL_START: "1", TOY_START_DELAY_MS: "2000" }),
    });
    const stderr = expectRefused(await exitOf(["--config", config]));
    expect(stderr).toContain('Server "second" failed to start');
    expect(stderr).toContain("toy server: TOY_FAIL_START=1, giving up before connecting");
    for (const file of [toyPid, lingerPid]) {
      const pid = Number(readFileSync(file, "utf8").trim());
      expect(Number.isInteger(pid) && pid > 0).toBe(true);
      // serve waits for the close before it exits; allow the kernel a moment to reap it.
      await waitForExit(pid, 1000).catch(() => undefined);
      expect(processIsAlive(pid), file).toBe(false);
    }
  });

  it("config serves two servers and their env stays on the host", async () => {
    const token = "tok-a-5f3e9c";
    const hostSecret = "host-only-8d1b2a";
    const config = writeConfig({
      a: toyEntry({ CM_E2E_TOKEN: token }),
      b: toyEntry(),
    });
    const session = await startServe({
      home,
      args: ["--config", config],
      // In serve's own environment: it must reach neither the servers nor the code.
      env: { HOST_ONLY_SECRET: hostSecret },
    });
    try {
      const { value, result } = await runJson<{
        a: string;
        b: string;
        a_host: string;
        sandbox_names: string[];
        sandbox_hits: string[];
        tools: string[];
      }>(
        session,
        `import os
print(json.dumps({
    "a": await a__env({"name": "CM_E2E_TOKEN"}),
    "b": await b__env({"name": "CM_E2E_TOKEN"}),
    "a_host": await a__env({"name": "HOST_ONLY_SECRET"}),
    "sandbox_names": sorted(os.environ),
    "sandbox_hits": [k for k, v in os.environ.items() if ${JSON.stringify(token)} in v or ${JSON.stringify(hostSecret)} in v],
    "tools": sorted(TOOLS),
}))`,
      );
      // The config's env reaches that server's process, and only that one.
      expect(value.a).toBe(token);
      expect(value.b).toBe("(unset)");
      expect(value.a_host).toBe("(unset)");
      // Inside the sandbox there is neither.
      expect(value.sandbox_names).not.toContain("CM_E2E_TOKEN");
      expect(value.sandbox_names).not.toContain("HOST_ONLY_SECRET");
      expect(value.sandbox_hits).toEqual([]);
      // With --config every tool is server__tool.
      expect(value.tools).toContain("a__add");
      expect(value.tools).toContain("b__get_weather");
      expect(value.tools.every((name) => /^[ab]__/.test(name))).toBe(true);
      expect(result.calls).toBe(3);
      expect(await session.description()).not.toContain(token);
    } finally {
      await session.close();
    }
  });
});

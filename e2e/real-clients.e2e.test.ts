// MCP clients nobody here wrote, run for real against a real `codemode daemon`: Claude Code's
// CLI (`claude mcp add/list`, no API key needed), Gemini CLI (`gemini mcp list`, no key
// either) and mcp-remote (the stdio-to-HTTP bridge many clients use). Each keeps working
// through what a user's setup goes through, such as the app restarting under a connected client.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertHostBuilt, cleanUpHosts, makeHome, startDaemon } from "../test-support/daemon.js";
import { freePort } from "../test-support/free-port.js";
import { repoRoot } from "../test-support/processes.js";
import { runWatchingArguments } from "../test-support/proc-tree.js";
import { cliShimLaunch } from "../electron/host/cli/commands/daemon-command.js";
import {
  clientSnippets,
  httpClientSnippets,
} from "../electron/host/api/clients/client-snippets.js";

const require = createRequire(import.meta.url);
/** Gemini CLI's command, from this checkout's devDependencies. */
const GEMINI = path.join(repoRoot, "node_modules", ".bin", "gemini");

interface GeminiSettings {
  mcpServers: Record<string, unknown>;
}

const MCP_REMOTE = path.join(
  path.dirname(require.resolve("mcp-remote/package.json")),
  "dist",
  "proxy.js",
);

describe("real MCP clients against codemode daemon", () => {
  let home: string;
  let clientHome: string;
  let port: number;

  beforeAll(async () => {
    assertHostBuilt();
    home = makeHome("codemode-clients-");
    clientHome = mkdtempSync(path.join(os.tmpdir(), "codemode-client-home-"));
    port = await freePort();
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ httpEnabled: true, httpPort: port }),
    );
  });

  afterAll(async () => {
    await cleanUpHosts();
    rmSync(clientHome, { recursive: true, force: true });
  });

  /**
   * A user of `claude`: a HOME of their own, and a shell command runner in a new project
   * folder of it for each `inNewProject()` (a user adds Code Mode in one terminal, then works
   * in other folders).
   */
  const newClaudeUser = () => {
    const userHome = mkdtempSync(path.join(clientHome, "claude-"));
    const env = {
      PATH: `${path.join(repoRoot, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      HOME: userHome,
    };
    return {
      inNewProject: () => {
        const project = mkdtempSync(path.join(userHome, "project-"));
        return Object.assign(
          (command: string) =>
            spawnSync("sh", ["-c", command], {
              cwd: project,
              env,
              encoding: "utf8",
              timeout: 60_000,
            }),
          { cwd: project, env },
        );
      },
    };
  };

  it("Claude Code: the Clients page's command registers the shim and `claude mcp list` reports it Connected", async () => {
    const daemon = await startDaemon(home);
    try {
      // What the daemon's Clients page shows (CODEMODE_HOME set, so an -e flag is in it).
      const snippet = clientSnippets(cliShimLaunch({ CODEMODE_HOME: home })).claudeCode;
      expect(snippet).toContain("-e CODEMODE_HOME=");
      const user = newClaudeUser();
      const added = user.inNewProject()(snippet);
      expect(added.status, added.stderr + added.stdout).toBe(0);
      // Listed from another folder: the entry is the user's, not only the folder's it was
      // added in (Claude Code's default scope).
      const listed = user.inNewProject()("claude mcp list");
      expect(listed.stdout).toMatch(/^codemode: .*codemode\.js shim - [✓✔] Connected$/m);
    } finally {
      await daemon.stop();
    }
  });

  it("Claude Code: the Clients page's HTTP command registers MCP over HTTP, Connected through its headers helper, the token in no process's arguments", async () => {
    const daemon = await startDaemon(home);
    try {
      const token = readFileSync(path.join(home, "token"), "utf8").trim();
      const url = `http://127.0.0.1:${port}/mcp`;
      // What the daemon's Clients page shows while MCP over HTTP is on.
      const launch = cliShimLaunch({ CODEMODE_HOME: home });
      const http = clientSnippets(launch, { url, token }).http!;
      expect(http.claudeCode).not.toContain(token);
      const user = newClaudeUser();
      const watched = (command: string, secret: string) => {
        const { cwd, env } = user.inNewProject();
        return runWatchingArguments(command, { cwd, env, secret });
      };
      // Adding it, and `claude mcp list` connecting (which runs the helper), while every
      // process's arguments are read as another local user could: the token is in none.
      const added = await watched(http.claudeCode, token);
      expect(added.status, added.output).toBe(0);
      const listed = await watched("claude mcp list", token);
      expect(listed.seen).toEqual([]);
      expect(added.seen).toEqual([]);
      const lines = listed.output.split("\n");
      expect(lines, listed.output).toContainEqual(
        expect.stringMatching(
          /^codemode: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - [✓✔] Connected$/,
        ),
      );
      // The watch sees a token that is in a command line: the way the page gave it before,
      // here with a wrong token, which also shows that Connected needs the right header.
      const wrongToken = "0".repeat(token.length);
      const addedWrong = await watched(
        `claude mcp add --scope user --transport http codemode-wrong ${url} --header 'Authorization: Bearer ${wrongToken}'`,
        wrongToken,
      );
      expect(addedWrong.status, addedWrong.output).toBe(0);
      expect(addedWrong.seen.some((line) => line.includes("claude"))).toBe(true);
      const again = user.inNewProject()("claude mcp list");
      const wrongLine = again.stdout.split("\n").find((l) => l.startsWith("codemode-wrong: "));
      expect(wrongLine, again.stdout).toBeDefined();
      expect(wrongLine).not.toContain("Connected");
    } finally {
      await daemon.stop();
    }
  });

  it("Gemini CLI: the Clients page's HTTP settings.json entry is Connected with the token and not without", async () => {
    const daemon = await startDaemon(home);
    try {
      const token = readFileSync(path.join(home, "token"), "utf8").trim();
      const url = `http://127.0.0.1:${port}/mcp`;
      const entry = (t: string) =>
        (
          JSON.parse(
            httpClientSnippets({ url, token: t }, cliShimLaunch({ CODEMODE_HOME: home })).gemini,
          ) as GeminiSettings
        ).mcpServers;
      const geminiHome = mkdtempSync(path.join(clientHome, "gemini-"));
      const project = path.join(geminiHome, "project");
      mkdirSync(path.join(geminiHome, ".gemini"), { recursive: true });
      mkdirSync(project);
      // The entry as pasted into ~/.gemini/settings.json, and one with a wrong token.
      writeFileSync(
        path.join(geminiHome, ".gemini", "settings.json"),
        JSON.stringify({
          mcpServers: {
            ...entry(token),
            "codemode-wrong": entry("0".repeat(token.length)).codemode,
          },
        }),
      );
      // Gemini CLI runs no MCP server in a folder the user has not trusted.
      writeFileSync(
        path.join(geminiHome, ".gemini", "trustedFolders.json"),
        JSON.stringify({ [project]: "TRUST_FOLDER" }),
      );
      const listed = spawnSync(GEMINI, ["mcp", "list"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", HOME: geminiHome },
        encoding: "utf8",
        timeout: 60_000,
      });
      // It writes the list on stderr (this version), so read both.
      const output = listed.stdout + listed.stderr;
      const lines = output.split("\n");
      expect(lines, output).toContain(`✓ codemode: ${url} (http) - Connected`);
      const wrongLine = lines.find((l) => l.includes(" codemode-wrong: "));
      expect(wrongLine, output).toBeDefined();
      expect(wrongLine).not.toContain("Connected");
    } finally {
      await daemon.stop();
    }
  });

  it("Gemini CLI: the Clients page's `gemini mcp add` command registers the shim and `gemini mcp list` reports it Connected", async () => {
    const daemon = await startDaemon(home);
    try {
      // What the daemon's Clients page shows (CODEMODE_HOME set, so an -e flag is in it).
      const snippet = clientSnippets(cliShimLaunch({ CODEMODE_HOME: home })).gemini;
      expect(snippet).toContain("-e CODEMODE_HOME=");
      const geminiHome = mkdtempSync(path.join(clientHome, "gemini-stdio-"));
      const project = path.join(geminiHome, "project");
      mkdirSync(path.join(geminiHome, ".gemini"), { recursive: true });
      mkdirSync(project);
      const env = {
        PATH: `${path.join(repoRoot, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
        HOME: geminiHome,
      };
      const added = spawnSync("sh", ["-c", snippet], {
        cwd: project,
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(added.status, added.stderr + added.stdout).toBe(0);
      // The entry landed in the user's settings, with the env the shim needs.
      const saved = JSON.parse(
        readFileSync(path.join(geminiHome, ".gemini", "settings.json"), "utf8"),
      ) as GeminiSettings;
      expect(saved.mcpServers.codemode).toMatchObject({ env: { CODEMODE_HOME: home } });
      // Gemini CLI starts no MCP server in a folder the user has not trusted.
      writeFileSync(
        path.join(geminiHome, ".gemini", "trustedFolders.json"),
        JSON.stringify({ [project]: "TRUST_FOLDER" }),
      );
      const listed = spawnSync(GEMINI, ["mcp", "list"], {
        cwd: project,
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      const output = listed.stdout + listed.stderr;
      expect(output).toMatch(/^✓ codemode: .*codemode\.js shim \(stdio\) - Connected$/m);
    } finally {
      await daemon.stop();
    }
  });

  it("mcp-remote starts a new session by itself after the app restarts (404 for the old one)", async () => {
    let daemon = await startDaemon(home);
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        MCP_REMOTE,
        `http://127.0.0.1:${port}/mcp`,
        "--transport",
        "http-only",
        "--header",
        `Authorization: Bearer ${token}`,
      ],
      env: { PATH: process.env.PATH ?? "", HOME: clientHome, MCP_REMOTE_CONFIG_DIR: clientHome },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "mcp-remote-e2e", version: "1" });
    try {
      await client.connect(transport);
      const before = await client.listTools();
      expect(before.tools.map((t) => t.name)).toEqual(["run_python"]);

      // The app restarts (an update, a crash, a reboot): every session it knew is gone.
      await daemon.stop();
      daemon = await startDaemon(home);

      const after = await client.listTools();
      expect(after.tools.map((t) => t.name)).toEqual(["run_python"]);
      const call = await client.callTool({ name: "nope", arguments: {} }).catch((e: unknown) => e);
      expect(String(call)).toContain("unknown tool");
    } catch (error) {
      throw new Error(`${String(error)}\nmcp-remote stderr:\n${stderr}`);
    } finally {
      await client.close().catch(() => undefined);
      await daemon.stop();
    }
  });
});

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { clientSnippets, httpClientSnippets } from "./client-snippets.js";

const launch = {
  command: "/usr/bin/node",
  args: ["/opt/codemode/bin/codemode.js", "shim"],
  env: { CODEMODE_HOME: "/d" },
};

const endpoint = { url: "http://127.0.0.1:17717/mcp", token: "ab".repeat(32) };
const bearer = { Authorization: `Bearer ${"ab".repeat(32)}` };

/** The words a POSIX shell makes of a command line (sh itself splits it). */
function shellWords(command: string): string[] {
  const out = spawnSync("sh", ["-c", `for w in ${command}; do printf '%s\\0' "$w"; done`], {
    encoding: "utf8",
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout.split("\0").slice(0, -1);
}

describe("client snippets", () => {
  it("gives snippets for Claude Desktop, Cursor, VS Code and Claude Code that start the shim", () => {
    const s = clientSnippets(launch);
    expect(JSON.parse(s.claudeDesktop)).toEqual({ mcpServers: { codemode: { ...launch } } });
    expect(JSON.parse(s.vscode)).toEqual({ servers: { codemode: { type: "stdio", ...launch } } });
    expect(s.claudeCode).toBe(
      "claude mcp add --scope user codemode -e CODEMODE_HOME=/d -- /usr/bin/node /opt/codemode/bin/codemode.js shim",
    );
  });

  it("gives Gemini CLI a `gemini mcp add` with the -e flags last (it takes several values)", () => {
    const s = clientSnippets({ ...launch, env: { CODEMODE_HOME: "/my data", A: "b" } });
    expect(shellWords(s.gemini)).toEqual([
      "gemini",
      "mcp",
      "add",
      "--scope",
      "user",
      "codemode",
      "/usr/bin/node",
      "/opt/codemode/bin/codemode.js",
      "shim",
      "-e",
      "CODEMODE_HOME=/my data",
      "-e",
      "A=b",
    ]);
  });

  it("has no HTTP entries while MCP over HTTP is off, and all four when it is on", () => {
    expect(clientSnippets(launch).http).toBeNull();
    expect(clientSnippets(launch, endpoint).http).toEqual(httpClientSnippets(endpoint));
  });

  it("gives each HTTP client its own keys: Cursor url, VS Code type http, Gemini CLI httpUrl", () => {
    const s = httpClientSnippets(endpoint);
    expect(s.url).toBe(endpoint.url);
    expect(s.token).toBe(endpoint.token);
    expect(JSON.parse(s.cursor)).toEqual({
      mcpServers: { codemode: { url: endpoint.url, headers: bearer } },
    });
    expect(JSON.parse(s.vscode)).toEqual({
      servers: { codemode: { type: "http", url: endpoint.url, headers: bearer } },
    });
    expect(JSON.parse(s.gemini)).toEqual({
      mcpServers: { codemode: { httpUrl: endpoint.url, headers: bearer } },
    });
  });

  it("puts the Claude Code command's name and URL before --header, the header one shell word", () => {
    const s = httpClientSnippets(endpoint);
    expect(shellWords(s.claudeCode)).toEqual([
      "claude",
      "mcp",
      "add",
      "--scope",
      "user",
      "--transport",
      "http",
      "codemode",
      endpoint.url,
      "--header",
      `Authorization: Bearer ${endpoint.token}`,
    ]);
  });
});

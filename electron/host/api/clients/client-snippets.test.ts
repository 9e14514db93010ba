import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { clientSnippets, httpClientSnippets, tokenHeaderCommand } from "./client-snippets.js";

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
    expect(clientSnippets(launch, endpoint).http).toEqual(httpClientSnippets(endpoint, launch));
  });

  it("gives each HTTP client its own keys: Cursor url, VS Code type http, Gemini CLI httpUrl", () => {
    const s = httpClientSnippets(endpoint, launch);
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

  it("gives Claude Code an add-json command whose headers helper prints the header: no token in it", () => {
    const s = httpClientSnippets(endpoint, launch);
    expect(s.claudeCode).not.toContain(endpoint.token);
    const words = shellWords(s.claudeCode);
    expect(words.slice(0, 6)).toEqual(["claude", "mcp", "add-json", "--scope", "user", "codemode"]);
    expect(words).toHaveLength(7);
    expect(JSON.parse(words[6]!)).toEqual({
      type: "http",
      url: endpoint.url,
      headersHelper: "CODEMODE_HOME=/d /usr/bin/node /opt/codemode/bin/codemode.js token header",
    });
  });

  it("makes the headers helper from the shim's launch: its environment stays assignments for sh", () => {
    const spaced = {
      ...launch,
      env: { CODEMODE_HOME: "/my data/it's", ELECTRON_RUN_AS_NODE: "1" },
    };
    const command = tokenHeaderCommand(spaced);
    // sh runs it: the environment reaches the program, the words are the program's arguments.
    const printer = `sh -c 'printf "%s|" "$CODEMODE_HOME" "$ELECTRON_RUN_AS_NODE" "$@"' helper`;
    const out = spawnSync("sh", ["-c", command.replace("/usr/bin/node", printer)], {
      encoding: "utf8",
    });
    expect(out.stdout).toBe("/my data/it's|1|/opt/codemode/bin/codemode.js|token|header|");
    // The packaged app's launch has no "shim" word: the bundle takes `token header` itself.
    expect(
      tokenHeaderCommand({ command: "/Apps/Code Mode", args: ["/r/codemode-shim.mjs"], env: {} }),
    ).toBe("'/Apps/Code Mode' /r/codemode-shim.mjs token header");
  });
});

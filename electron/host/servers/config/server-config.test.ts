import { describe, expect, it } from "vitest";

import {
  formatConfigIssues,
  parseServersConfig,
  serializeServersConfig,
  singleServerConfig,
  validateServersConfig,
  type ConfigIssue,
  type ConfigResult,
} from "./server-config.js";
import type { ServerEntry, ServersConfig } from "../../core/ports/server-config-types.js";

const FILE = "servers.json";

function parse(value: unknown): ConfigResult {
  return parseServersConfig(JSON.stringify(value));
}

function errorsOf(result: ConfigResult): ConfigIssue[] {
  if (result.ok) throw new Error("expected the config to be refused");
  return result.errors;
}

function configOf(result: ConfigResult): ServersConfig {
  if (!result.ok) throw new Error(formatConfigIssues(result.errors, FILE));
  return result.config;
}

function paths(result: ConfigResult): string[] {
  return errorsOf(result).map((issue) => issue.path.join("."));
}

describe("accepted configs", () => {
  it("reads the example of docs/servers.md", () => {
    const config = configOf(
      parseServersConfig(
        `{
  "mcpServers": {
    "notes":   {"command": "uv", "args": ["run", "notes-server"], "allow": ["search"], "private": true},
    "tracker": {"command": "tracker-mcp", "allow": ["create_issue", "find_issue"], "private": ["create_issue"]}
  }
}`,
      ),
    );
    expect([...config.servers.keys()]).toEqual(["notes", "tracker"]);
    expect(config.servers.get("notes")).toEqual({
      command: "uv",
      args: ["run", "notes-server"],
      env: {},
      secretEnv: [],
      allow: ["search"],
      private: true,
    });
    expect(config.servers.get("tracker")?.private).toEqual(["create_issue"]);
  });

  it("keeps the file order of servers, even names that look like numbers", () => {
    const config = configOf(
      parseServersConfig(
        '{"mcpServers": {"zeta": {"command": "z"}, "2": {"command": "b"}, "alpha": {"command": "a"}, "1": {"command": "c"}}}',
      ),
    );
    expect([...config.servers.keys()]).toEqual(["zeta", "2", "alpha", "1"]);
  });

  it("accepts an empty server list, so a user may remove every server and save", () => {
    expect(configOf(parse({ mcpServers: {} })).servers.size).toBe(0);
  });

  it("tolerates a byte order mark written by some editors", () => {
    expect(
      configOf(parseServersConfig('\uFEFF{"mcpServers": {"s": {"command": "x"}}}')).servers.size,
    ).toBe(1);
  });

  it("validates an already parsed object the same way", () => {
    const result = validateServersConfig({ mcpServers: { s: { command: "x", args: ["a"] } } });
    expect(configOf(result).servers.get("s")?.args).toEqual(["a"]);
    expect(paths(validateServersConfig({ mcpServers: { s: { url: "http://x" } } }))).toEqual([
      "mcpServers.s.url",
      "mcpServers.s.command",
    ]);
  });
});

describe("config errors name the entry and the key", () => {
  it("refuses url with the entry and key named and says only stdio is supported", () => {
    const errors = errorsOf(
      parse({ mcpServers: { notes: { command: "x", url: "https://example.com/mcp" } } }),
    );
    expect(errors).toEqual([
      {
        path: ["mcpServers", "notes", "url"],
        message:
          'server "notes": "url" is not supported: only stdio servers (command, args, env) can be wrapped',
      },
    ]);
  });

  it("refuses unknown top-level keys, naming them", () => {
    const errors = errorsOf(parse({ mcpServers: {}, servers: {} }));
    expect(errors).toEqual([
      {
        path: ["servers"],
        message: 'unknown top-level key "servers": only "mcpServers" is allowed',
      },
    ]);
  });

  it("requires mcpServers to be present and an object, and the file to be an object", () => {
    expect(paths(parse({}))).toEqual(["mcpServers"]);
    expect(errorsOf(parse({}))[0]?.message).toContain("missing");
    expect(paths(parse({ mcpServers: [] }))).toEqual(["mcpServers"]);
    expect(paths(parse([]))).toEqual([""]);
    expect(paths(parse(null))).toEqual([""]);
  });
});

describe("server names must be unique words", () => {
  it("refuses a name used twice, which JSON.parse would silently merge", () => {
    const errors = errorsOf(
      parseServersConfig(
        '{"mcpServers": {"notes": {"command": "a"}, "other": {"command": "b"}, "notes": {"command": "c"}}}',
      ),
    );
    expect(errors).toEqual([
      { path: ["mcpServers", "notes"], message: 'server name "notes" is used more than once' },
    ]);
  });

  it("reports a name used three times once", () => {
    const text =
      '{"mcpServers": {"n": {"command": "a"}, "n": {"command": "b"}, "n": {"command": "c"}}}';
    expect(paths(parseServersConfig(text))).toEqual(["mcpServers.n"]);
  });

  it("refuses duplicate keys inside an entry and at the top level too", () => {
    const text = '{"mcpServers": {"s": {"command": "a", "command": "b"}}, "mcpServers": {}}';
    expect(errorsOf(parseServersConfig(text))).toEqual([
      {
        path: ["mcpServers", "s", "command"],
        message: 'server "s": "command" appears more than once; JSON keeps only the last one',
      },
      {
        path: ["mcpServers"],
        message: '"mcpServers" appears more than once; JSON keeps only the last one',
      },
    ]);
  });

  it("does not mistake equal keys in different objects, or escaped look-alikes, for duplicates", () => {
    const text =
      '{"mcpServers": {"a": {"command": "x", "env": {"K": "1"}}, "b": {"command": "x", "env": {"K": "1"}}, "c\\u0064": {"command": "x"}, "cd ": {"command": "y"}}}';
    // "c\u0064" is "cd"; "cd " differs by a space: one bad name, no duplicates.
    expect(paths(parseServersConfig(text))).toEqual(["mcpServers.cd "]);
  });

  it("sees a duplicate spelled once plainly and once with an escape", () => {
    const text = '{"mcpServers": {"cd": {"command": "x"}, "c\\u0064": {"command": "y"}}}';
    expect(paths(parseServersConfig(text))).toEqual(["mcpServers.cd"]);
  });

  it.each([
    ["empty", ""],
    ["with a space", "my notes"],
    ["with a dot", "notes.v2"],
    ["with unicode letters", "notizen-ü"],
    ["with a slash", "a/b"],
    ["with a colon", "a:b"],
  ])("refuses a name %s", (_label, name) => {
    const errors = errorsOf(parse({ mcpServers: { [name]: { command: "x" } } }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toEqual(["mcpServers", name]);
    expect(errors[0]?.message).toContain('ASCII letters, digits, "_" and "-"');
  });

  it("accepts letters, digits, underscores and dashes", () => {
    const names = ["notes", "Notes_2", "my-tracker", "9", "__proto__"];
    const config = configOf(
      parse({
        mcpServers: Object.fromEntries(names.map((name) => [name, { command: "x" }])),
      }),
    );
    expect(new Set(config.servers.keys())).toEqual(new Set(names));
  });
});

describe("all issues are collected", () => {
  it("reports every problem of every entry in one pass, in file order", () => {
    const text = `{
  "mcpServers": {
    "web": {"url": "https://x", "headers": {}},
    "bad name": {"command": "x", "env": {"N": 1}},
    "ok": {"command": "x"},
    "last": {"command": "", "type": "http", "secret": ["NOPE"], "cwd": "."},
    "ok": {"command": "y"}
  },
  "extra": 1
}`;
    const result = parseServersConfig(text);
    expect(paths(result)).toEqual([
      "mcpServers.ok",
      "extra",
      "mcpServers.web.url",
      "mcpServers.web.headers",
      "mcpServers.web.command",
      "mcpServers.bad name",
      "mcpServers.bad name.env.N",
      "mcpServers.last.cwd",
      "mcpServers.last.type",
      "mcpServers.last.command",
      "mcpServers.last.secret.0",
    ]);
  });
});

describe("bad JSON", () => {
  it("gives one issue with the line and column of the error", () => {
    const text = '{\n  "mcpServers": {\n    "s": {"command": "x",}\n  }\n}';
    expect(errorsOf(parseServersConfig(text))).toEqual([
      {
        path: [],
        message: "not valid JSON at line 3, column 26: expected a property name in double quotes",
      },
    ]);
  });

  it("never quotes the file's text, which may hold a secret", () => {
    const text = '{"mcpServers": {"s": {"command": "x", "env": {"TOKEN": "hunter2" oops}}}}';
    const [issue] = errorsOf(parseServersConfig(text));
    expect(issue?.message).not.toContain("hunter2");
    expect(issue?.message).toMatch(/^not valid JSON at line 1, column \d+:/);
  });
});

describe("round trip", () => {
  const full: ServersConfig = {
    servers: new Map<string, ServerEntry>([
      [
        "notes",
        {
          command: "uv",
          args: ["run", "notes-server", "--flag=${X}"],
          env: { TOKEN: "secret", MODE: "ro" },
          secretEnv: ["TOKEN"],
          allow: ["search", "read"],
          private: true,
        },
      ],
      [
        "2",
        { command: "tracker-mcp", args: [], env: {}, secretEnv: [], allow: null, private: ["x"] },
      ],
      ["plain", { command: "p", args: [], env: {}, secretEnv: [], allow: [], private: false }],
    ]),
  };

  it("parse(serialize(config)) gives the same config, in the same order", () => {
    const text = serializeServersConfig(full);
    const again = configOf(parseServersConfig(text));
    expect([...again.servers.entries()]).toEqual([...full.servers.entries()]);
    expect(serializeServersConfig(again)).toBe(text);
  });

  it("writes 2-space JSON with a final newline, leaving out defaults", () => {
    const text = serializeServersConfig(full);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "mcpServers": {\n    "notes": {\n      "command": "uv",');
    const written = JSON.parse(text) as { mcpServers: Record<string, Record<string, unknown>> };
    expect(written.mcpServers.notes).toEqual({
      command: "uv",
      args: ["run", "notes-server", "--flag=${X}"],
      env: { TOKEN: "secret", MODE: "ro" },
      allow: ["search", "read"],
      private: true,
      secret: ["TOKEN"],
    });
    expect(Object.keys(written.mcpServers["2"] ?? {})).toEqual([
      "command",
      "args",
      "env",
      "private",
    ]);
    expect(Object.keys(written.mcpServers.plain ?? {})).toEqual([
      "command",
      "args",
      "env",
      "allow",
    ]);
  });

  it("round-trips a file written by hand to the canonical form", () => {
    const config = configOf(
      parseServersConfig('{"mcpServers":{"s":{"type":"stdio","command":"x","allow":null}}}'),
    );
    expect(serializeServersConfig(config)).toBe(
      '{\n  "mcpServers": {\n    "s": {\n      "command": "x",\n      "args": [],\n      "env": {}\n    }\n  }\n}\n',
    );
  });

  it("writes an empty server list that reads back empty", () => {
    const text = serializeServersConfig({ servers: new Map() });
    expect(text).toBe(`${JSON.stringify({ mcpServers: {} }, null, 2)}\n`);
    expect(configOf(parseServersConfig(text)).servers.size).toBe(0);
  });

  it("writes the same text JSON.stringify would when no name looks like a number", () => {
    const config = configOf(
      parse({
        mcpServers: {
          a: { command: "x", env: { K: "v" }, secret: ["K"] },
          b: { command: "y", private: true },
        },
      }),
    );
    const text = serializeServersConfig(config);
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });

  it("keeps a server called __proto__, and refuses an env name __proto__ rather than drop it", () => {
    const proto: ServersConfig = {
      servers: new Map([
        [
          "__proto__",
          { command: "x", args: [], env: {}, secretEnv: [], allow: null, private: false },
        ],
      ]),
    };
    const again = configOf(parseServersConfig(serializeServersConfig(proto)));
    expect([...again.servers.entries()]).toEqual([...proto.servers.entries()]);
    const text = '{"mcpServers": {"s": {"command": "x", "env": {"__proto__": "v"}}}}';
    expect(errorsOf(parseServersConfig(text))).toEqual([
      {
        path: ["mcpServers", "s", "env", "__proto__"],
        message: 'server "s": env name "__proto__" is not allowed',
      },
    ]);
    expect(
      paths(parseServersConfig('{"mcpServers": {"s": {"command": "x", "__proto__": {}}}}')),
    ).toEqual(["mcpServers.s.__proto__"]);
  });
});

describe("singleServerConfig for codemode serve -- CMD", () => {
  it("wraps one server named server, with env passed through and marked secret", () => {
    const config = singleServerConfig("npx", ["-y", "server-everything"], {
      allow: ["echo"],
      private: ["echo"],
      env: { API_KEY: "k" },
    });
    expect([...config.servers.keys()]).toEqual(["server"]);
    expect(config.servers.get("server")).toEqual({
      command: "npx",
      args: ["-y", "server-everything"],
      env: { API_KEY: "k" },
      secretEnv: ["API_KEY"],
      allow: ["echo"],
      private: ["echo"],
    });
  });

  it("uses the defaults: every tool, nothing private, and survives a round trip", () => {
    const config = singleServerConfig("toy", [], { allow: null, private: [], env: {} });
    expect(config.servers.get("server")).toMatchObject({ allow: null, private: false });
    const again = configOf(parseServersConfig(serializeServersConfig(config)));
    expect([...again.servers.entries()]).toEqual([...config.servers.entries()]);
  });
});

describe("formatConfigIssues", () => {
  it("gives one FILE: path: message line per issue, quoting odd path segments", () => {
    const result = parseServersConfig(
      '{"mcpServers": {"notes": {"command": "x", "url": "u"}, "a b": {"command": "x"}}',
    );
    expect(formatConfigIssues(errorsOf(result), FILE)).toContain("servers.json: not valid JSON");
    const issues = errorsOf(
      parse({ mcpServers: { notes: { command: "x", url: "u" }, "a b": { command: "x" } } }),
    );
    expect(formatConfigIssues(issues, FILE).split("\n")).toEqual([
      'servers.json: mcpServers.notes.url: server "notes": "url" is not supported: only stdio servers (command, args, env) can be wrapped',
      'servers.json: mcpServers."a b": server name "a b" may only hold ASCII letters, digits, "_" and "-"',
    ]);
    expect(formatConfigIssues([{ path: [], message: "m" }], "f")).toBe("f: m");
  });
});

import { describe, expect, it } from "vitest";

import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { serverEntryInput } from "../../../../shared/server-entry-schema.js";
import { dispatchApi } from "../../api/api-dispatcher.js";
import type { ConfigIssue, ServerEntry } from "../../core/ports/server-config-types.js";
import { entryToFile, validateServerEntry, type EntryResult } from "./server-entry.js";

const check = validateServerEntry;

function errorsOf(result: EntryResult): ConfigIssue[] {
  if (result.ok) throw new Error("expected the entry to be refused");
  return result.issues;
}

function entryOf(result: EntryResult): ServerEntry {
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.entry;
}

function paths(result: EntryResult): string[] {
  return errorsOf(result).map((issue) => issue.path.join("."));
}

describe("accepted entries", () => {
  it("fills defaults: no args, no env, no secrets, every tool, nothing private", () => {
    expect(entryOf(check({ command: "x" }))).toEqual({
      command: "x",
      args: [],
      env: {},
      secretEnv: [],
      allow: null,
      private: false,
    });
  });

  it("reads allow null as every tool and type stdio as the default transport", () => {
    const entry = entryOf(check({ command: "x", type: "stdio", allow: null, private: false }));
    expect(entry.allow).toBeNull();
    expect(entry.private).toBe(false);
  });

  it("maps secret to secretEnv and passes env values as written, ${VAR} unexpanded", () => {
    const entry = entryOf(
      check({
        command: "gh-mcp",
        env: { TOKEN: "ghp_123", HOME_DIR: "${HOME}" },
        secret: ["TOKEN"],
      }),
    );
    expect(entry.env).toEqual({ TOKEN: "ghp_123", HOME_DIR: "${HOME}" });
    expect(entry.secretEnv).toEqual(["TOKEN"]);
  });
});

describe("an entry's issues name the key and the item", () => {
  it("refuses headers the same way", () => {
    const errors = errorsOf(check({ command: "x", headers: { Authorization: "t" } }));
    expect(errors[0]?.path).toEqual(["headers"]);
    expect(errors[0]?.message).toContain('"headers" is not supported');
    expect(errors[0]?.message).toContain("only stdio servers");
  });

  it("refuses any unknown key, naming it", () => {
    const errors = errorsOf(check({ command: "x", cwd: "/tmp" }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toEqual(["cwd"]);
    expect(errors[0]?.message).toMatch(/^unknown key "cwd"/);
  });

  it("refuses a type other than stdio, naming the value", () => {
    const errors = errorsOf(check({ command: "x", type: "sse" }));
    expect(errors[0]?.path).toEqual(["type"]);
    expect(errors[0]?.message).toBe(
      'type "sse" is not supported: only stdio servers (command, args, env) can be wrapped',
    );
    expect(errorsOf(check({ command: "x", type: 3 }))[0]?.message).toContain(
      "type 3 is not supported",
    );
  });

  it("requires an entry to be an object with a non-empty command", () => {
    expect(paths(check("uv run"))).toEqual([""]);
    expect(paths(check({}))).toEqual(["command"]);
    expect(paths(check({ command: "  " }))).toEqual(["command"]);
    expect(paths(check({ command: ["uv"] }))).toEqual(["command"]);
  });

  it("requires args to be an array of strings, naming the bad item", () => {
    expect(paths(check({ command: "x", args: "run" }))).toEqual(["args"]);
    const errors = errorsOf(check({ command: "x", args: ["a", 1, "b"] }));
    expect(errors).toEqual([
      {
        path: ["args", "1"],
        message: "args[1] must be a string, not a number",
      },
    ]);
  });

  it("refuses NUL characters, which no process can receive", () => {
    expect(paths(check({ command: "x\u0000", args: ["a\u0000"] }))).toEqual(["command", "args.0"]);
  });
});

describe("env, secret, allow and private", () => {
  it("requires env values to be strings, saying to quote them", () => {
    const errors = errorsOf(check({ command: "x", env: { PORT: 8080, DEBUG: true, OK: "1" } }));
    expect(errors.map((e) => e.path.join("."))).toEqual(["env.PORT", "env.DEBUG"]);
    expect(errors[0]?.message).toBe(
      'env "PORT" must be a string, not a number (write it in quotes)',
    );
  });

  it("requires env to be an object and its names to be usable variable names", () => {
    expect(paths(check({ command: "x", env: ["A=1"] }))).toEqual(["env"]);
    expect(paths(check({ command: "x", env: { "A=B": "1", "": "2" } }))).toEqual([
      "env.A=B",
      "env.",
    ]);
  });

  it("requires every secret name to be a key of env", () => {
    const errors = errorsOf(
      check({ command: "x", env: { TOKEN: "t" }, secret: ["TOKEN", "API_KEY"] }),
    );
    expect(errors).toEqual([
      {
        path: ["secret", "1"],
        message: 'secret "API_KEY" is not a key of "env"',
      },
    ]);
    expect(paths(check({ command: "x", secret: ["T"] }))).toEqual(["secret.0"]);
  });

  it("requires secret, allow and private lists to hold unique non-empty strings", () => {
    const result = check({
      command: "x",
      env: { T: "1" },
      secret: ["T", "T"],
      allow: ["a", ""],
      private: ["b", 3],
    });
    expect(paths(result)).toEqual(["allow.1", "private.1", "secret.1"]);
    expect(errorsOf(result)[2]?.message).toBe('secret lists "T" more than once');
    expect(paths(check({ command: "x", allow: "search" }))).toEqual(["allow"]);
  });

  it("accepts private as true, false or a list, nothing else", () => {
    expect(paths(check({ command: "x", private: "yes" }))).toEqual(["private"]);
    expect(entryOf(check({ command: "x", private: ["t"] })).private).toEqual(["t"]);
  });

  it("refuses a private label on a tool that allow leaves out", () => {
    const errors = errorsOf(check({ command: "x", allow: ["read"], private: ["read", "write"] }));
    expect(errors).toEqual([
      {
        path: ["private", "1"],
        message: 'private tool "write" is not in "allow"',
      },
    ]);
  });
});

describe("entryToFile", () => {
  it("writes what validateServerEntry reads back to an equal entry, leaving out defaults", () => {
    const entry: ServerEntry = {
      command: "uv",
      args: ["run"],
      env: { TOKEN: "t" },
      secretEnv: ["TOKEN"],
      allow: null,
      private: false,
    };
    expect(entryToFile(entry)).toEqual({
      command: "uv",
      args: ["run"],
      env: { TOKEN: "t" },
      secret: ["TOKEN"],
    });
    expect(entryOf(check(entryToFile(entry)))).toEqual(entry);
  });
});

describe("the API's entry is the same schema", () => {
  it("servers.upsert is refused at the door with the file's own message, at the item", async () => {
    const response = await dispatchApi({} as ApiHandlers, "servers.upsert", {
      name: "s",
      entry: { command: "x", args: ["a", 1] },
    } as never);
    expect(response).toMatchObject({
      ok: false,
      error: {
        code: "invalid",
        fields: [
          { path: ["entry", "args", "1"], message: "args[1] must be a string, not a number" },
        ],
      },
    });
  });

  it("takes a stored-secret reference as an env value, and checks it like any other", () => {
    const entry = { command: "x", env: { KEY: { storedSecret: "KEY" } }, secret: ["KEY", "NOPE"] };
    const parsed = serverEntryInput.safeParse(entry);
    expect(
      parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join("."), i.message]),
    ).toEqual([["secret.1", 'secret "NOPE" is not a key of "env"']]);
    expect(
      serverEntryInput.safeParse({ command: "x", env: { KEY: { storedSecret: "KEY" } } }).success,
    ).toBe(true);
    expect(validateServerEntry({ command: "x", env: { KEY: { storedSecret: "KEY" } } }).ok).toBe(
      false,
    );
  });
});

describe('"ask first"', () => {
  it("accepts ask as true, false or a list of tools, and an entry without it as before", () => {
    expect(entryOf(check({ command: "x" })).ask).toBeUndefined();
    expect(entryOf(check({ command: "x", ask: false })).ask).toBeUndefined();
    expect(entryOf(check({ command: "x", ask: true })).ask).toBe(true);
    expect(entryOf(check({ command: "x", ask: ["delete"] })).ask).toEqual(["delete"]);
    expect(errorsOf(check({ command: "x", ask: "yes" }))).toEqual([
      { path: ["ask"], message: '"ask" must be an array of names' },
    ]);
    expect(errorsOf(check({ command: "x", ask: ["a", "a"] }))[0]?.message).toBe(
      'ask lists "a" more than once',
    );
  });

  it("refuses asking before a tool that allow leaves out", () => {
    expect(errorsOf(check({ command: "x", allow: ["read"], ask: ["write"] }))).toEqual([
      { path: ["ask", "0"], message: 'ask-first tool "write" is not in "allow"' },
    ]);
  });

  it("writes ask back so it reads back equal", () => {
    for (const ask of [true, ["delete"]]) {
      const entry = entryOf(check({ command: "x", ask }));
      expect(entryToFile(entry).ask).toEqual(ask);
      expect(entryOf(check(entryToFile(entry)))).toEqual(entry);
    }
  });
});

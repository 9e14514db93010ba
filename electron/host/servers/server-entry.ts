// One `mcpServers` entry: the keys a stdio server may have, checked one by one so that each
// issue names the key (and the item) that is wrong, and written back in the file's shape.

import type { ConfigIssue, ServerEntry, ServerEntryFile } from "./server-config-types.js";

export type EntryResult = { ok: true; entry: ServerEntry } | { ok: false; issues: ConfigIssue[] };

const ENTRY_KEYS = new Set(["command", "args", "env", "type", "allow", "private", "secret"]);
const REMOTE_ONLY_KEYS = new Set(["url", "headers"]);
const STDIO_ONLY = "only stdio servers (command, args, env) can be wrapped";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks one entry as the file (or the UI) wrote it. Issue paths are within the entry; the
 * config adds where the entry is and which server it is.
 */
export function validateServerEntry(raw: unknown): EntryResult {
  const issues: ConfigIssue[] = [];
  const fail = (path: string[], message: string): void => {
    issues.push({ path, message });
  };

  if (!isObject(raw)) {
    fail([], `the entry must be an object with at least "command"`);
    return { ok: false, issues };
  }

  for (const key of Object.keys(raw)) {
    if (REMOTE_ONLY_KEYS.has(key)) {
      fail([key], `${quote(key)} is not supported: ${STDIO_ONLY}`);
    } else if (!ENTRY_KEYS.has(key)) {
      fail(
        [key],
        `unknown key ${quote(key)}: an entry may hold ${[...ENTRY_KEYS].map((k) => `"${k}"`).join(", ")}`,
      );
    }
  }

  if (raw.type !== undefined && raw.type !== "stdio") {
    const shown = typeof raw.type === "string" ? quote(raw.type) : JSON.stringify(raw.type);
    fail(["type"], `type ${shown} is not supported: ${STDIO_ONLY}`);
  }

  const command = typeof raw.command === "string" ? raw.command : "";
  if (raw.command === undefined) {
    fail(["command"], `"command" is missing`);
  } else if (command.trim() === "") {
    fail(["command"], `"command" must be a non-empty string`);
  } else if (command.includes("\0")) {
    fail(["command"], `"command" holds a NUL character`);
  }

  const args: string[] = [];
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) {
      fail(["args"], `"args" must be an array of strings`);
    } else {
      raw.args.forEach((arg: unknown, index) => {
        if (typeof arg !== "string") {
          fail(["args", String(index)], `args[${index}] must be a string, not ${describe(arg)}`);
        } else if (arg.includes("\0")) {
          fail(["args", String(index)], `args[${index}] holds a NUL character`);
        } else {
          args.push(arg);
        }
      });
    }
  }

  const env = new Map<string, string>();
  let envKeys: Set<string> | null = null;
  if (raw.env !== undefined) {
    if (!isObject(raw.env)) {
      fail(["env"], `"env" must be an object of NAME -> string value`);
    } else {
      envKeys = new Set(Object.keys(raw.env));
      for (const [key, value] of Object.entries(raw.env)) {
        // Names with "=" or NUL cannot be put in a process environment at all.
        if (key === "" || key.includes("=") || key.includes("\0")) {
          fail(["env", key], `env name ${quote(key)} is not a valid variable name`);
        } else if (typeof value !== "string") {
          // Values are passed as written, never converted: say how to write a number.
          fail(
            ["env", key],
            `env ${quote(key)} must be a string, not ${describe(value)} (write it in quotes)`,
          );
        } else if (value.includes("\0")) {
          fail(["env", key], `env ${quote(key)} holds a NUL character`);
        } else {
          env.set(key, value);
        }
      }
    }
  } else {
    envKeys = new Set();
  }

  const allow =
    raw.allow === undefined || raw.allow === null ? null : nameList(raw.allow, "allow", fail);

  let privateLabels: boolean | string[] = false;
  if (raw.private === true || raw.private === false) {
    privateLabels = raw.private;
  } else if (raw.private !== undefined) {
    if (Array.isArray(raw.private)) {
      privateLabels = nameList(raw.private, "private", fail) ?? false;
    } else {
      fail(["private"], `"private" must be true, false or an array of tool names`);
    }
  }
  if (Array.isArray(allow) && Array.isArray(privateLabels)) {
    const kept = new Set(allow);
    privateLabels.forEach((tool, index) => {
      if (!kept.has(tool)) {
        // A label on a tool that is not kept would stop startup later; say so now.
        fail(["private", String(index)], `private tool ${quote(tool)} is not in "allow"`);
      }
    });
  }

  let secretEnv: string[] = [];
  if (raw.secret !== undefined) {
    secretEnv = nameList(raw.secret, "secret", fail) ?? [];
    if (envKeys !== null) {
      secretEnv.forEach((secret, index) => {
        if (!envKeys.has(secret)) {
          fail(["secret", String(index)], `secret ${quote(secret)} is not a key of "env"`);
        }
      });
    }
  }

  if (issues.length > 0) return { ok: false, issues };
  const entry: ServerEntry = {
    command,
    args,
    env: Object.fromEntries(env),
    secretEnv,
    allow,
    private: privateLabels,
  };
  return { ok: true, entry };
}

/** An array of non-empty, unique strings, or null after reporting why not. */
function nameList(
  raw: unknown,
  key: string,
  fail: (path: string[], message: string) => void,
): string[] | null {
  if (!Array.isArray(raw)) {
    fail([key], `${quote(key)} must be an array of names`);
    return null;
  }
  const seen = new Set<string>();
  let ok = true;
  raw.forEach((item: unknown, index) => {
    const path = [key, String(index)];
    if (typeof item !== "string" || item === "") {
      fail(path, `${key}[${index}] must be a non-empty string, not ${describe(item)}`);
      ok = false;
    } else if (seen.has(item)) {
      fail(path, `${key} lists ${quote(item)} more than once`);
      ok = false;
    } else {
      seen.add(item);
    }
  });
  return ok ? [...seen] : null;
}

/** An entry in the file's shape (what parseServersConfig reads back to an equal entry). */
export function entryToFile(entry: ServerEntry): ServerEntryFile {
  const out: ServerEntryFile = {
    command: entry.command,
    args: [...entry.args],
    env: Object.fromEntries(Object.entries(entry.env)),
  };
  if (entry.allow !== null) out.allow = [...entry.allow];
  if (entry.private !== false) {
    out.private = entry.private === true ? true : [...entry.private];
  }
  if (entry.secretEnv.length > 0) out.secret = [...entry.secretEnv];
  return out;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "an empty string";
  return `a ${typeof value}`;
}

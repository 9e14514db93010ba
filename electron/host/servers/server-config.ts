// Reads, checks and writes the `mcpServers` file that lists the stdio servers Code Mode wraps.
//
// The shape is the one MCP clients already use, so users can paste their existing config. Anything
// we would only half support (url, headers, unknown keys, other transports) is an error naming the
// entry and the key: a server silently started differently from what the file says is worse than
// one that does not start at all. Every issue is collected so one edit can fix them all.

import { CONFIG_LIMITS } from "../../../shared/limits.js";
import type { ServerEntry, ServerEntryFile, ServersConfig } from "./server-config-types.js";

export interface ConfigIssue {
  /** Where the problem is, e.g. ["mcpServers", "notes", "url"]; [] for the file as a whole. */
  path: string[];
  message: string;
}

export type ConfigResult =
  { ok: true; config: ServersConfig } | { ok: false; errors: ConfigIssue[] };

const SERVERS_KEY = "mcpServers";
/** ASCII only: the name becomes a prefix of Python identifiers and a path in the UI. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const ENTRY_KEYS = new Set(["command", "args", "env", "type", "allow", "private", "secret"]);
const REMOTE_ONLY_KEYS = new Set(["url", "headers"]);
const STDIO_ONLY = "only stdio servers (command, args, env) can be wrapped";

/** Parses the text of a config file. Issues name no file: formatConfigIssues adds it. */
export function parseServersConfig(text: string): ConfigResult {
  // Editors on Windows like to prepend a byte order mark; JSON.parse rejects it.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const scan = scanJson(body);
  if (!scan.ok) {
    const { line, column } = lineAndColumn(body, scan.position);
    // Our own wording, never V8's: its messages quote the surrounding text, which may hold a secret.
    return {
      ok: false,
      errors: [
        { path: [], message: `not valid JSON at line ${line}, column ${column}: ${scan.message}` },
      ],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    // The scanner accepts exactly JSON, so this is unreachable; still, never throw on user input.
    return { ok: false, errors: [{ path: [], message: "not valid JSON" }] };
  }
  const issues = scan.duplicates.map(duplicateIssue);
  // JSON.parse moves integer-like keys ("1", "2") to the front of an object; the scan kept file order.
  const result = validate(value, scan.serverOrder);
  if (!result.ok) issues.push(...result.errors);
  return issues.length > 0 ? { ok: false, errors: issues } : result;
}

/** Checks an already parsed value (e.g. one sent by the UI) against the mcpServers shape. */
export function validateServersConfig(value: unknown): ConfigResult {
  return validate(value, null);
}

/** One human line per issue, `FILE: mcpServers.notes.url: message`, joined by newlines. */
export function formatConfigIssues(issues: readonly ConfigIssue[], source: string): string {
  return issues
    .map((issue) =>
      issue.path.length === 0
        ? `${source}: ${issue.message}`
        : `${source}: ${formatPath(issue.path)}: ${issue.message}`,
    )
    .join("\n");
}

/** The config as a file body that parseServersConfig reads back to an equal config. */
export function serializeServersConfig(config: ServersConfig): string {
  if (config.servers.size === 0) return `{\n  "${SERVERS_KEY}": {}\n}\n`;
  // Written by hand around JSON.stringify: an object would move integer-like names ("1", "2")
  // to the front, and the user's order of servers is part of what they saved.
  const entries = [...config.servers].map(([name, entry]) => {
    const body = JSON.stringify(entryToFile(entry), null, 2).replaceAll("\n", "\n    ");
    return `    ${quote(name)}: ${body}`;
  });
  return `{\n  "${SERVERS_KEY}": {\n${entries.join(",\n")}\n  }\n}\n`;
}

/**
 * The config behind `codemode serve -- CMD ARGS`: one server named "server". Its env comes from
 * `--env NAME`, i.e. copied out of the user's shell, where tokens live, so every value is
 * treated as secret (kept out of logs and the UI).
 */
export function singleServerConfig(
  command: string,
  args: string[],
  opts: { allow: string[] | null; private: string[]; env: Record<string, string> },
): ServersConfig {
  const env = Object.fromEntries(Object.entries(opts.env));
  const entry: ServerEntry = {
    command,
    args: [...args],
    env,
    secretEnv: Object.keys(env),
    allow: opts.allow === null ? null : [...opts.allow],
    // No labels and `false` mean the same; false is the canonical form (and is not written out).
    private: opts.private.length === 0 ? false : [...opts.private],
  };
  return { servers: new Map([["server", entry]]) };
}

// ---------------------------------------------------------------------------------------------
// Validation

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function validate(value: unknown, serverOrder: string[] | null): ConfigResult {
  const issues: ConfigIssue[] = [];
  if (!isObject(value)) {
    issues.push({
      path: [],
      message: `the file must hold one JSON object: {"${SERVERS_KEY}": {"name": {"command": ...}}}`,
    });
    return { ok: false, errors: issues };
  }
  for (const key of Object.keys(value)) {
    if (key !== SERVERS_KEY) {
      issues.push({
        path: [key],
        message: `unknown top-level key ${quote(key)}: only "${SERVERS_KEY}" is allowed`,
      });
    }
  }
  const servers = value[SERVERS_KEY];
  if (servers === undefined) {
    issues.push({ path: [SERVERS_KEY], message: `"${SERVERS_KEY}" is missing` });
    return { ok: false, errors: issues };
  }
  if (!isObject(servers)) {
    issues.push({
      path: [SERVERS_KEY],
      message: `"${SERVERS_KEY}" must be an object of server name -> entry`,
    });
    return { ok: false, errors: issues };
  }

  const names = orderedKeys(servers, serverOrder);
  const result = new Map<string, ServerEntry>();
  for (const name of names) {
    const path = [SERVERS_KEY, name];
    if (name === "") {
      issues.push({
        path,
        message: `a server name is empty: use ASCII letters, digits, "_" and "-"`,
      });
    } else if (!SERVER_NAME.test(name)) {
      issues.push({
        path,
        message: `server name ${quote(name)} may only hold ASCII letters, digits, "_" and "-"`,
      });
    }
    const entry = validateEntry(name, servers[name], issues);
    if (entry !== null) result.set(name, entry);
  }
  return issues.length > 0
    ? { ok: false, errors: issues }
    : { ok: true, config: { servers: result } };
}

/** Keys in file order when the scan saw them, else in object order. */
function orderedKeys(servers: Obj, fileOrder: string[] | null): string[] {
  const keys = Object.keys(servers);
  if (fileOrder === null) return keys;
  const present = new Set(keys);
  const ordered = [...new Set(fileOrder)].filter((key) => present.has(key));
  // Only differs if the caller's value and the scan disagree; never drop a key because of it.
  return ordered.length === keys.length ? ordered : keys;
}

/** Returns the entry, or null after pushing at least one issue. */
function validateEntry(name: string, raw: unknown, issues: ConfigIssue[]): ServerEntry | null {
  const base = [SERVERS_KEY, name];
  const where = `server ${quote(name)}`;
  const before = issues.length;
  const fail = (path: string[], message: string): void => {
    issues.push({ path: [...base, ...path], message: `${where}: ${message}` });
  };

  if (!isObject(raw)) {
    fail([], `the entry must be an object with at least "command"`);
    return null;
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

  if (issues.length > before) return null;
  return {
    command,
    args,
    env: Object.fromEntries(env),
    secretEnv,
    allow,
    private: privateLabels,
  };
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

function duplicateIssue(path: string[]): ConfigIssue {
  const key = path[path.length - 1] ?? "";
  if (path.length === 1) {
    return { path, message: `${quote(key)} appears more than once; JSON keeps only the last one` };
  }
  if (path.length === 2 && path[0] === SERVERS_KEY) {
    return { path, message: `server name ${quote(key)} is used more than once` };
  }
  if (path.length >= 3 && path[0] === SERVERS_KEY) {
    return {
      path,
      message: `server ${quote(path[1] ?? "")}: ${quote(key)} appears more than once; JSON keeps only the last one`,
    };
  }
  return { path, message: `${quote(key)} appears more than once; JSON keeps only the last one` };
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

/** Plain segments for words, quoted ones otherwise, so `env."A.B"` stays unambiguous. */
function formatPath(path: readonly string[]): string {
  return path.map((segment) => (SERVER_NAME.test(segment) ? segment : quote(segment))).join(".");
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: position - lastBreak };
}

// ---------------------------------------------------------------------------------------------
// JSON scan
//
// JSON.parse keeps the last of two equal keys without a word, loses the file order of
// integer-like keys, and on Node 20 often reports no position (and quotes the text around the
// error). This strict scanner walks the text once to find the first syntax error's position,
// every duplicate key and the order of the server names. Values still come from JSON.parse.

type ScanResult =
  | { ok: true; duplicates: string[][]; serverOrder: string[] | null }
  | { ok: false; position: number; message: string };

class ScanError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

function scanJson(text: string): ScanResult {
  const duplicates: string[][] = [];
  let serverOrder: string[] | null = null;
  let i = 0;

  const fail = (message: string): never => {
    throw new ScanError(i, i >= text.length ? "the text ends too early" : message);
  };
  const skipSpace = (): void => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const expect = (char: string, message: string): void => {
    if (text.charAt(i) !== char) fail(message);
    i++;
  };

  const scanString = (): string => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const code = text.charCodeAt(i);
      if (code === 0x22) break;
      if (code < 0x20) fail("a control character inside a string must be escaped");
      if (code === 0x5c) {
        const next = text.charAt(i + 1);
        if (next === "u") {
          if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
            i++;
            fail("\\u must be followed by four hex digits");
          }
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(next) || next === "") {
          i++;
          fail("invalid escape in a string");
        }
        i += 2;
        continue;
      }
      i++;
    }
    i++; // closing quote
    return JSON.parse(text.slice(start, i)) as string;
  };

  const digits = (): void => {
    if (!/[0-9]/.test(text.charAt(i))) fail("a number needs a digit here");
    while (/[0-9]/.test(text.charAt(i))) i++;
  };
  const scanNumber = (): void => {
    if (text.charAt(i) === "-") i++;
    if (text.charAt(i) === "0") i++;
    else digits();
    if (text.charAt(i) === ".") {
      i++;
      digits();
    }
    if (text.charAt(i) === "e" || text.charAt(i) === "E") {
      i++;
      if (text.charAt(i) === "+" || text.charAt(i) === "-") i++;
      digits();
    }
  };

  const scanValue = (path: string[]): void => {
    if (path.length > CONFIG_LIMITS.maxNesting)
      fail(`nested deeper than ${CONFIG_LIMITS.maxNesting} levels`);
    skipSpace();
    const char = text.charAt(i);
    if (char === "{") scanObject(path);
    else if (char === "[") scanArray(path);
    else if (char === '"') scanString();
    else if (char === "-" || /[0-9]/.test(char)) scanNumber();
    else {
      const literal = ["true", "false", "null"].find((word) => text.startsWith(word, i));
      if (literal === undefined) fail(`unexpected character ${quote(char)}`);
      else i += literal.length;
    }
  };

  const scanObject = (path: string[]): void => {
    i++;
    const seen = new Set<string>();
    const reported = new Set<string>();
    const order: string[] = [];
    skipSpace();
    if (text.charAt(i) === "}") {
      i++;
    } else {
      for (;;) {
        skipSpace();
        if (text.charAt(i) !== '"') fail("expected a property name in double quotes");
        const key = scanString();
        if (seen.has(key) && !reported.has(key)) {
          reported.add(key);
          duplicates.push([...path, key]);
        }
        seen.add(key);
        order.push(key);
        skipSpace();
        expect(":", 'expected ":" after a property name');
        scanValue([...path, key]);
        skipSpace();
        if (text.charAt(i) === ",") {
          i++;
          continue;
        }
        expect("}", 'expected "," or "}" after a property value');
        break;
      }
    }
    if (path.length === 1 && path[0] === SERVERS_KEY) serverOrder = order;
  };

  const scanArray = (path: string[]): void => {
    i++;
    skipSpace();
    if (text.charAt(i) === "]") {
      i++;
      return;
    }
    for (let index = 0; ; index++) {
      scanValue([...path, String(index)]);
      skipSpace();
      if (text.charAt(i) === ",") {
        i++;
        continue;
      }
      expect("]", 'expected "," or "]" after an array item');
      return;
    }
  };

  try {
    scanValue([]);
    skipSpace();
    if (i < text.length) fail("unexpected text after the JSON value");
    return { ok: true, duplicates, serverOrder };
  } catch (error) {
    if (error instanceof ScanError) {
      return { ok: false, position: error.position, message: error.message };
    }
    throw error;
  }
}

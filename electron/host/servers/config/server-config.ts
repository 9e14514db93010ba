// Reads, checks and writes the `mcpServers` file that lists the stdio servers Code Mode wraps.
//
// The shape is the one MCP clients already use, so users can paste their existing config. Anything
// we would only half support (url, headers, unknown keys, other transports) is an error naming the
// entry and the key: a server silently started differently from what the file says is worse than
// one that does not start at all. Every issue is collected so one edit can fix them all.

import { lineAndColumn, scanJson } from "./json-scan.js";
import type {
  ConfigIssue,
  ConfigResult,
  ServerEntry,
  ServersConfig,
} from "../../core/ports/server-config-types.js";
import { entryToFile, validateServerEntry } from "./server-entry.js";

export type { ConfigIssue, ConfigResult };

const SERVERS_KEY = "mcpServers";
/** ASCII only: the name becomes a prefix of Python identifiers and a path in the UI. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** Parses the text of a config file. Issues name no file: formatConfigIssues adds it. */
export function parseServersConfig(text: string): ConfigResult {
  // Editors on Windows like to prepend a byte order mark; JSON.parse rejects it.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const scan = scanJson(body, SERVERS_KEY);
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
  const result = validate(value, scan.order);
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
    const checked = validateServerEntry(servers[name]);
    if (checked.ok) result.set(name, checked.entry);
    else {
      for (const issue of checked.issues) {
        issues.push({
          path: [...path, ...issue.path],
          message: `server ${quote(name)}: ${issue.message}`,
        });
      }
    }
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

/** What a key that appears twice is called, by where it is. */
export function duplicateIssue(path: string[]): ConfigIssue {
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

/** Plain segments for words, quoted ones otherwise, so `env."A.B"` stays unambiguous. */
function formatPath(path: readonly string[]): string {
  return path.map((segment) => (SERVER_NAME.test(segment) ? segment : quote(segment))).join(".");
}

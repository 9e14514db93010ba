// One `mcpServers` entry, checked by the one entry schema (shared/server-entry-schema.ts) and
// written back in the file's shape. The schema's issues become config issues, one per key.

import {
  serverEntryFileSchema,
  unknownKeyMessage,
  type ServerEntryFile,
} from "../../../../shared/server-entry-schema.js";
import type { ConfigIssue, ServerEntry } from "../../core/ports/server-config-types.js";

export type EntryResult = { ok: true; entry: ServerEntry } | { ok: false; issues: ConfigIssue[] };

/** An entry as written out: args and env always present, defaults left out. */
export type WrittenEntry = ServerEntryFile & { args: string[]; env: Record<string, string> };

const hasOwn = (value: unknown, key: string): boolean =>
  typeof value === "object" && value !== null && Object.prototype.hasOwnProperty.call(value, key);

/**
 * Checks one entry as the file (or the UI) wrote it. Issue paths are within the entry; the
 * config adds where the entry is and which server it is. Unknown keys come first, then each
 * key in the order of the entry's keys.
 */
export function validateServerEntry(raw: unknown): EntryResult {
  // zod passes over an env name "__proto__" without a word (so that it cannot set a
  // prototype): it is refused here rather than silently dropped.
  const early: ConfigIssue[] = [];
  if (hasOwn((raw as { env?: unknown } | null)?.env, "__proto__")) {
    early.push({ path: ["env", "__proto__"], message: `env name "__proto__" is not allowed` });
  }
  const parsed = serverEntryFileSchema.safeParse(raw);
  if (parsed.success && early.length === 0) {
    const file = parsed.data;
    return {
      ok: true,
      entry: {
        command: file.command,
        args: file.args ?? [],
        env: file.env ?? {},
        secretEnv: file.secret ?? [],
        allow: file.allow ?? null,
        private: file.private ?? false,
        // Absent unless set, so entries without "ask" compare equal to those of before.
        ...(file.ask === undefined || file.ask === false ? {} : { ask: file.ask }),
        ...(file.hideArgs === undefined || file.hideArgs === false
          ? {}
          : { hideArgs: file.hideArgs }),
      },
    };
  }
  const unknown: ConfigIssue[] = [];
  const rest: ConfigIssue[] = [];
  for (const issue of parsed.error?.issues ?? []) {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        unknown.push({ path: [...path, key], message: unknownKeyMessage(key) });
      }
    } else if (issue.code === "invalid_union" && issue.errors[1]?.length) {
      // A private list with a bad item: the item's own issue, at the item.
      for (const inner of issue.errors[1]) {
        rest.push({ path: [...path, ...inner.path.map(String)], message: inner.message });
      }
    } else {
      rest.push({ path, message: issue.message });
    }
  }
  return { ok: false, issues: [...early, ...unknown, ...rest] };
}

/** An entry in the file's shape (what parseServersConfig reads back to an equal entry). */
export function entryToFile(entry: ServerEntry): WrittenEntry {
  const out: WrittenEntry = {
    command: entry.command,
    args: [...entry.args],
    env: Object.fromEntries(Object.entries(entry.env)),
  };
  if (entry.allow !== null) out.allow = [...entry.allow];
  if (entry.private !== false) {
    out.private = entry.private === true ? true : [...entry.private];
  }
  if (entry.secretEnv.length > 0) out.secret = [...entry.secretEnv];
  const ask = entry.ask ?? false;
  if (ask !== false) out.ask = ask === true ? true : [...ask];
  const hide = entry.hideArgs ?? false;
  if (hide !== false) out.hideArgs = hide === true ? true : [...hide];
  return out;
}

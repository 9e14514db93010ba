import type { ErrorObject } from "ajv";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";

/** A name the code sent, quoted in a message to it, is cut to this. */
export const CALLED_NAME_MAX_CHARS = 80;

/**
 * A guessed tool name longer than this gets no "did you mean" suggestions, which bounds the
 * edit-distance work a hostile name can cause.
 */
export const SUGGEST_MAX_NAME_CHARS = 100;

/** The most "did you mean" names offered. */
export const SUGGESTIONS_MAX = 3;

/** Schema errors named in a refusal; the rest are left out. */
export const SCHEMA_ERRORS_SHOWN_MAX = 5;

/** Where in the arguments a schema error is (its JSON pointer), as quoted in a refusal. */
export const ARG_PATH_SHOWN_MAX_CHARS = 80;

/**
 * An exception's type name is shown to the code only if it is a plain identifier at most
 * this long, so no message text can ride along in it.
 */
export const ERROR_TYPE_NAME_MAX_CHARS = 60;

// Everything here builds text that reaches the code, i.e. the model. It is written by us,
// quotes only what the code itself sent or what the catalog already shows, and is bounded.

/** Cuts a message to the refusal limit, on a whole character. */
export function bounded(message: string, max: number = BRIDGE_LIMITS.refusalMaxChars): string {
  if (message.length <= max) return message;
  let cut = message.slice(0, max - 1);
  // Do not leave half of a surrogate pair at the end.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A name as the code should see it in a message: quoted, escaped, short. */
export function quoteName(name: string): string {
  const max = CALLED_NAME_MAX_CHARS;
  const shown = name.length > max ? `${name.slice(0, max)}…` : name;
  return JSON.stringify(shown);
}

/** The name recorded in an event: the whole name unless it is absurdly long. */
export function eventName(name: string): string {
  return bounded(name, BRIDGE_LIMITS.eventNameMaxChars);
}

/**
 * Catalog names close to `name`, to help a model that guessed a name. The catalog only
 * holds allowed tools, so this reveals nothing the sandbox's TOOLS does not already show.
 */
export function closeNames(name: string, candidates: Iterable<string>): string[] {
  if (name.length === 0 || name.length > SUGGEST_MAX_NAME_CHARS) return [];
  const wanted = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    // A name without its server prefix (`search` for `notes__search`) is the commonest slip.
    if (lower.endsWith(`__${wanted}`)) {
      scored.push({ name: candidate, score: 0 });
      continue;
    }
    if (Math.abs(lower.length - wanted.length) > 3) continue;
    const distance = levenshtein(wanted, lower);
    if (distance <= Math.max(1, Math.floor(wanted.length / 3))) {
      scored.push({ name: candidate, score: distance });
    }
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, SUGGESTIONS_MAX).map((s) => s.name);
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** How a JSON value is called in Python, since the code that sent it is Python. */
export function pythonTypeName(value: unknown): string {
  if (value === null) return "None";
  if (Array.isArray(value)) return "list";
  switch (typeof value) {
    case "string":
      return "str";
    case "number":
      return Number.isInteger(value) ? "int" : "float";
    case "boolean":
      return "bool";
    case "object":
      return "dict";
    default:
      return typeof value;
  }
}

/** ajv's errors as one line naming each offending place, e.g. `/query must be string`. */
export function schemaErrorText(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return "they do not match it";
  return errors
    .slice(0, SCHEMA_ERRORS_SHOWN_MAX)
    .map((error) => {
      const where =
        error.instancePath === ""
          ? "arguments"
          : bounded(error.instancePath, ARG_PATH_SHOWN_MAX_CHARS);
      const params = error.params as Record<string, unknown>;
      const extra =
        error.keyword === "additionalProperties" && typeof params.additionalProperty === "string"
          ? `: ${quoteName(params.additionalProperty)}`
          : "";
      return `${where} ${error.message ?? "is invalid"}${extra}`;
    })
    .join("; ");
}

/**
 * The only part of a host-side exception the code may see: its type name. Taken from
 * `name` (which carries `TimeoutError`, `AbortError`, `McpError`) when that is a plain
 * identifier, so that no message text can ride along in it.
 */
export function errorTypeName(error: unknown): string {
  const candidates: unknown[] = [];
  if (typeof error === "object" && error !== null) {
    candidates.push((error as { name?: unknown }).name);
    candidates.push((error as { constructor?: { name?: unknown } }).constructor?.name);
  }
  for (const candidate of candidates) {
    if (
      typeof candidate === "string" &&
      candidate.length <= ERROR_TYPE_NAME_MAX_CHARS &&
      /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(candidate)
    ) {
      return candidate;
    }
  }
  return error instanceof Error ? "Error" : "UnknownError";
}

/** 30000 -> "30 s", 50 -> "0.05 s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A call that waited (for the user, a slot, a restart) while its tool changed: not sent. */
export function changedWhileWaiting(shown: string): string {
  return (
    `${shown} refused: the tool changed while this call waited (its settings or its ` +
    "definition), so it was not sent. Call it again to use the tool as it is now."
  );
}

/** An errno-style code (EFBIG) at the start of an error's text, or null. Anchored: linear. */
const ERRNO_CODE = /^(?:[A-Za-z]*Error: )?(E[A-Z]{2,})\b/;

/**
 * What the model is told of a host failure: its code (EFBIG, ENOSPC), never its message, which
 * names the host's own paths; null when it has no such code.
 */
export function failureCode(text: string): string | null {
  return ERRNO_CODE.exec(text)?.[1] ?? null;
}

/** A call while the audit log cannot be written: not sent, as no call goes out unlogged. */
export function logDownMessage(shown: string, why: string): string {
  const code = failureCode(why);
  return (
    `${shown} refused: Code Mode's audit log cannot be written` +
    `${code === null ? "" : ` (${code})`}, so no call goes out until it can.`
  );
}

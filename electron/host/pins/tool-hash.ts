// The hash a tool is pinned by: its WHOLE wire object as the server sent it (name,
// description, input and output schema, annotations, and any key the SDK's own schema would
// drop), canonicalised so that key order and whitespace do not count, then sha256.
// Hashing only what a person reviews (the description) would miss a new schema parameter.

import { createHash } from "node:crypto";
import { PIN_LIMITS } from "../../../shared/limits.js";

/**
 * The value with every object's keys sorted, as plain JSON data. Below
 * PIN_LIMITS.canonicalMaxDepth a subtree is kept as its plain JSON text: still hashed (a
 * change there still counts), only not key-sorted, and the recursion stays bounded.
 */
export function canonicalValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= PIN_LIMITS.canonicalMaxDepth) return { deepJson: plainJson(value) };
  if (Array.isArray(value)) return value.map((item: unknown) => canonicalValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    // As JSON.stringify would: an undefined member is no member (the wire had none).
    if (item !== undefined) out[key] = canonicalValue(item, depth + 1);
  }
  return out;
}

function plainJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "(too deep to write)";
  }
}

/** A wire tool as pinned: its canonical JSON text and that text's sha256 (hex). */
export interface PinnedForm {
  definition: Record<string, unknown>;
  json: string;
  hash: string;
}

export function pinnedForm(wire: Record<string, unknown>): PinnedForm {
  const definition = canonicalValue(wire) as Record<string, unknown>;
  const json = JSON.stringify(definition);
  return { definition, json, hash: createHash("sha256").update(json).digest("hex") };
}

/** The start of a hash, as the CLI and the audit's text show it. */
export function shortHash(hash: string | null): string {
  return hash === null ? "-" : hash.slice(0, 12);
}

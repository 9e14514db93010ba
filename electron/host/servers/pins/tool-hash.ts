// The hash a tool is pinned by: its WHOLE wire object as the server sent it (name,
// description, input and output schema, annotations, and any key the SDK's own schema would
// drop), canonicalised so that key order and whitespace do not count, then sha256.
// Hashing only what a person reviews (the description) would miss a new schema parameter.

import { sha256Hex } from "../../util/sha256-hex.js";

/**
 * Canonical form (sorted keys) stops this deep: a deeper part is hashed as its plain JSON
 * text, so the work stays bounded on a hostile definition and a change there still counts.
 */
export const PIN_CANONICAL_MAX_DEPTH = 256;

/**
 * The value with every object's keys sorted, as plain JSON data. Below
 * PIN_CANONICAL_MAX_DEPTH a subtree is kept as its plain JSON text: still hashed (a
 * change there still counts), only not key-sorted, and the recursion stays bounded.
 */
export function canonicalValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= PIN_CANONICAL_MAX_DEPTH) return { deepJson: plainJson(value) };
  if (Array.isArray(value)) return value.map((item: unknown) => canonicalValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    // As JSON.stringify would: an undefined member is no member (the wire had none). Defined,
    // not assigned: JSON.parse makes "__proto__" an ordinary key, and assigning it would set
    // out's prototype instead, leaving that key and all under it out of the JSON and the hash
    // (a server could then change a parameter named __proto__ without being held).
    if (item !== undefined) {
      Object.defineProperty(out, key, {
        value: canonicalValue(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

type Open =
  | { items: readonly unknown[]; next: number }
  | { object: Record<string, unknown>; keys: string[]; next: number };

/**
 * JSON.stringify's text of JSON data, written with a stack of its own: JSON.stringify
 * recurses and throws on a few thousand levels (a 10 KB line from a server), and a subtree
 * that cannot be written must still be hashed by its content, not as one fixed text.
 */
export function plainJson(root: unknown): string {
  const parts: string[] = [];
  const stack: Open[] = [];
  const write = (value: unknown): void => {
    if (value === null || typeof value !== "object") {
      // undefined (an array hole) is written null, as JSON.stringify does.
      parts.push(JSON.stringify(value) ?? "null");
    } else if (Array.isArray(value)) {
      parts.push("[");
      stack.push({ items: value, next: 0 });
    } else {
      const object = value as Record<string, unknown>;
      parts.push("{");
      stack.push({
        object,
        keys: Object.keys(object).filter((k) => object[k] !== undefined),
        next: 0,
      });
    }
  };
  write(root);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if ("items" in top) {
      if (top.next === top.items.length) {
        parts.push("]");
        stack.pop();
        continue;
      }
      if (top.next > 0) parts.push(",");
      write(top.items[top.next++]);
    } else {
      if (top.next === top.keys.length) {
        parts.push("}");
        stack.pop();
        continue;
      }
      if (top.next > 0) parts.push(",");
      const key = top.keys[top.next++] as string;
      parts.push(JSON.stringify(key), ":");
      write(top.object[key]);
    }
  }
  return parts.join("");
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
  return { definition, json, hash: sha256Hex(json) };
}

/** The start of a hash, as the CLI and the audit's text show it. */
export function shortHash(hash: string | null): string {
  return hash === null ? "-" : hash.slice(0, 12);
}

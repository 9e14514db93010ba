// An audit filter made ready for the log: substring tests on raw lines that rule most lines
// out before any is parsed, the full test on a parsed entry, and what the index looks up.
import { auditEntrySchema, type AuditEntry } from "../../../shared/audit-entry.js";
import { type AuditFilter } from "../../../shared/audit-query-types.js";
import { entryMatchesFields, entryText, textNeedle } from "../../../shared/audit-filter.js";
import { indexKey, type KeyField } from "./audit-index-file.js";

export interface CompiledFilter {
  /** False only when the line cannot match; true means "parse and ask `entry`". */
  line(text: string): boolean;
  entry(entry: AuditEntry): boolean;
  fromMs: number;
  toMs: number;
  /** Whether the filter narrows anything at all. */
  empty: boolean;
  /** For the index: names every match carries, its kinds (null: any), its text (null: none). */
  keys: string[];
  kinds: ReadonlySet<string> | null;
  needle: string | null;
  /** A text no entry can hold. */
  never: boolean;
}

export function compileFilter(filter: AuditFilter = {}): CompiledFilter {
  const fromMs = parseTime(filter.from, Number.NEGATIVE_INFINITY, "from");
  const toMs = parseTime(filter.to, Number.POSITIVE_INFINITY, "to");
  const kinds = filter.kinds !== undefined && filter.kinds.length > 0 ? filter.kinds : null;
  const kindNeedles = kinds?.map((kind) => `"kind":${JSON.stringify(kind)}`) ?? null;
  const values = [filter.client, filter.server, filter.tool, filter.decision, filter.runId];
  const valueNeedles = values.flatMap((v) => (v === undefined ? [] : [JSON.stringify(v)]));
  // The line holds text JSON-escaped ("a \"b\"" for a "b"): look for both spellings.
  const text = filter.text !== undefined && filter.text !== "" ? filter.text : null;
  const textNeedles =
    text === null
      ? null
      : [...new Set([text.toLowerCase(), JSON.stringify(text).slice(1, -1).toLowerCase()])];
  const needle = text === null ? null : textNeedle(text);
  const fields: [KeyField, string | undefined][] = [
    ["client", filter.client],
    ["server", filter.server],
    ["tool", filter.tool],
    ["decision", filter.decision],
    ["runId", filter.runId],
  ];
  const keys = fields.flatMap(([field, value]) =>
    value === undefined ? [] : [indexKey(field, value)],
  );
  const empty =
    fromMs === Number.NEGATIVE_INFINITY &&
    toMs === Number.POSITIVE_INFINITY &&
    kinds === null &&
    valueNeedles.length === 0 &&
    text === null;

  return {
    fromMs,
    toMs,
    empty,
    keys,
    kinds: kinds === null ? null : new Set(kinds),
    needle,
    never: text !== null && needle === null,
    line(line) {
      if (kindNeedles !== null && !kindNeedles.some((needle) => line.includes(needle))) {
        return false;
      }
      if (!valueNeedles.every((needle) => line.includes(needle))) return false;
      if (textNeedles !== null) {
        const lower = line.toLowerCase();
        if (!textNeedles.some((needle) => lower.includes(needle))) return false;
      }
      return true;
    },
    entry(entry) {
      if (!entryMatchesFields(entry, filter, { fromMs, toMs })) return false;
      if (text === null) return true;
      return needle !== null && entryText(entry).includes(needle);
    },
  };
}

export function parseEntry(text: string): AuditEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = auditEntrySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function parseTime(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`"${name}" is not a date: ${value}`);
  return ms;
}

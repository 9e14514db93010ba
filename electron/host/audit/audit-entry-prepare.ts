// What an entry becomes before it is queued: every text scrubbed of the secrets of the moment
// and cut to its limit, then checked against the schema verify uses.
import {
  ZodArray,
  ZodEnum,
  ZodISODateTime,
  ZodLiteral,
  ZodNullable,
  ZodOptional,
  type z,
} from "zod";
import {
  GENESIS_PREV,
  auditEntrySchema,
  type AuditEntry,
  type AuditEntryInput,
} from "../../../shared/audit-entry.js";
import { sha256Hex, type common } from "../../../shared/audit-entry-fields.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { cutMiddleUtf8, cutUtf8 } from "../util/text-cut.js";
import { secretMasker } from "../core/secrets/secret-mask.js";
import { KiB } from "../util/units.js";

/** `error` of run_finished and image_build. */
export const AUDIT_ERROR_MAX_BYTES = 2 * KiB;

/** Every other free-text field (reason, detail, summary, ...). */
export const AUDIT_TEXT_MAX_BYTES = 2 * KiB;

// Fields cut to a limit of their own; any other top-level text is cut to AUDIT_TEXT_MAX_BYTES.
const FIELD_LIMITS: Record<string, number> = {
  code: AUDIT_LIMITS.codeMaxBytes,
  error: AUDIT_ERROR_MAX_BYTES,
  args: AUDIT_LIMITS.argsMaxBytes,
};

/**
 * Whether a field's schema admits no free text, only values of its own (an enum, a literal, a
 * timestamp, a hash, or a list of those): no secret is in them, and a short secret that happened
 * to match part of one made the entry invalid and lost it. A failed append marks the log failing
 * and refuses runs, and some of these entries come from anyone on this machine (refusals and
 * connection caps from knocking): "ui" scrubbed of a secret "ui" did that.
 */
function holdsNoText(schema: unknown): boolean {
  let inner = schema;
  while (inner instanceof ZodOptional || inner instanceof ZodNullable) inner = inner.unwrap();
  if (inner instanceof ZodArray) return holdsNoText(inner.element);
  return (
    inner instanceof ZodEnum ||
    inner instanceof ZodLiteral ||
    inner instanceof ZodISODateTime ||
    inner === sha256Hex
  );
}

const NONE: ReadonlySet<string> = new Set();

const HEADER_PLACEHOLDER = { seq: 1, ts: new Date(0).toISOString(), prev: GENESIS_PREV };

// The union's own option for each kind, looked up once, without the chain's header (seq, ts,
// prev: set when the entry is written, and not part of what is checked here): checking an
// entry's body against its kind's option gives the same verdict and the same issues as the
// union (which picks that same option) given the entry with any header, and the same body,
// with none of the cost of adding a placeholder header and taking it off again, on every
// call's entry (bench/bridge-overhead.ts). An unknown kind still goes to the union, with a
// placeholder header, for its own error.
const HEADER_KEYS = { seq: true, ts: true, prev: true } as const;
const BODY_SCHEMA_OF_KIND: ReadonlyMap<unknown, z.ZodType> = new Map(
  auditEntrySchema.options.map((option) => {
    // Every option has the header (`common`); the options' omit signatures differ only in it.
    const body = (option as z.ZodObject<typeof common>).omit(HEADER_KEYS);
    return [option.shape.kind.value, body] as const;
  }),
);

// The fields of each kind left unscrubbed (holdsNoText), looked up once like its schema. This
// replaces a list kept by hand, which missed fields added later (transports, server, cause).
const UNSCRUBBED_OF_KIND: ReadonlyMap<unknown, ReadonlySet<string>> = new Map(
  auditEntrySchema.options.map((option) => {
    const names = Object.entries(option.shape)
      .filter(([, field]) => holdsNoText(field))
      .map(([name]) => name);
    return [option.shape.kind.value, new Set(names)] as const;
  }),
);

/** The entry as it will be written, or a TypeError naming what makes it invalid. */
export function prepareEntry(input: AuditEntryInput, secrets: readonly string[]): AuditEntryInput {
  const cut: Record<string, unknown> = {};
  const fields: [string, unknown][] = Object.entries(input);
  // The secrets are prepared once per entry, not once per field and string; null: none to mask.
  const masker = secretMasker(secrets);
  const unscrubbed = UNSCRUBBED_OF_KIND.get(input.kind) ?? NONE;
  for (const [key, value] of fields) {
    const clean = masker === null || unscrubbed.has(key) ? value : masker.deep(value);
    // The run's code keeps its start and its end: the code chooses what fills it.
    const cutText = key === "code" ? cutMiddleUtf8 : cutUtf8;
    cut[key] =
      typeof clean === "string" ? cutText(clean, FIELD_LIMITS[key] ?? AUDIT_TEXT_MAX_BYTES) : clean;
  }
  // Checked now, against the schema verify will use, so a bad entry is refused to its
  // caller instead of becoming a line that fails verification forever.
  const bodySchema = BODY_SCHEMA_OF_KIND.get(cut.kind);
  if (bodySchema !== undefined) return checked(bodySchema.safeParse(cut)) as AuditEntryInput;
  const {
    seq: _seq,
    ts: _ts,
    prev: _prev,
    ...body
  } = checked(auditEntrySchema.safeParse({ ...cut, ...HEADER_PLACEHOLDER })) as AuditEntry;
  return body;
}

function checked(parsed: z.ZodSafeParseResult<unknown>): unknown {
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : `${issue.path.join(".")}: ${issue.message}`;
    throw new TypeError(`not a valid audit entry (${where})`);
  }
  return parsed.data;
}

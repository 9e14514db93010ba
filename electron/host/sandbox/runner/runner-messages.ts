import { z } from "zod";
import { ATTACH_LIMITS, IMAGE_LIMITS, PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { KiB } from "../../util/units.js";

/**
 * A done message's `error` is cut to its last this-many characters before anything else
 * looks at it. The runner sends at most errorMaxChars code points (plus "..."), which is at
 * most twice that in UTF-16 units, so an honest traceback is never cut here.
 */
export const DONE_ERROR_MAX_CHARS = 8 * KiB;

/**
 * A line may be longer than six times its content's compact JSON (six: the longest escape of
 * one UTF-16 unit) by at most this many characters, else the run ends as a protocol
 * violation. The runner writes compact JSON; what JSON.parse throws away (whitespace,
 * a key given twice, zeros padding a number) costs the host a parse and the run nothing.
 */
export const LINE_SLACK_CHARS = 256;

// Shapes of what the runner may send (see runner-protocol.md). Objects are strict:
// an extra key is as much a protocol violation as a missing one.
//
// The code in the sandbox can write any line, so every string here is bounded before anything
// else in the host touches it: a line is at most PROTOCOL_LIMITS.lineMaxBytes (the splitter
// enforces that before JSON.parse), a tool name is a bounded identifier, an output chunk over
// its cap is a violation, and a done error is cut to its cap right here. What the rest of the
// host sees from the runner is therefore small, whatever the code wrote.

const TOOL_TOO_LONG = "a call's tool name was too long";
const TOOL_NOT_IDENTIFIER = "a call's tool name was not an identifier";
const CHUNK_TOO_LONG = "an output chunk was over its size";
const IMAGE_NAME_BAD =
  "an image's name was too long, not plain ASCII (letters, digits, . _ -) or not ending in .png";
const IMAGE_TOO_BIG = `an image was over ${IMAGE_LIMITS.maxBytes} bytes`;
const IMAGE_CHUNK_TOO_LONG = "an image chunk was over its size";
const TOO_MANY_IMAGES = `the run sent more than ${IMAGE_LIMITS.perRun} images`;
const FILE_NAME_BAD =
  "an attached file's name was too long, empty, or not plain ASCII (letters, digits, . _ -)";
const FILE_MIME_BAD = "an attached file's type was not a plain MIME type";
const FILE_TOO_BIG = `an attached file was over ${ATTACH_LIMITS.maxBytes} bytes`;
const FILE_CHUNK_TOO_LONG = "an attached file's chunk was over its size";
const TOO_MANY_FILES = `the run attached more than ${ATTACH_LIMITS.perRun} files`;
const OUR_REASONS: ReadonlySet<string> = new Set([
  TOOL_TOO_LONG,
  TOOL_NOT_IDENTIFIER,
  CHUNK_TOO_LONG,
  IMAGE_NAME_BAD,
  IMAGE_TOO_BIG,
  IMAGE_CHUNK_TOO_LONG,
  TOO_MANY_IMAGES,
  FILE_NAME_BAD,
  FILE_MIME_BAD,
  FILE_TOO_BIG,
  FILE_CHUNK_TOO_LONG,
  TOO_MANY_FILES,
]);

/** What the catalog produces: an ASCII Python identifier. Linear: no alternation to retry. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const callMessage = z.strictObject({
  type: z.literal("call"),
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  tool: z
    .string()
    .max(PROTOCOL_LIMITS.toolNameMaxChars, TOOL_TOO_LONG)
    .regex(IDENTIFIER, TOOL_NOT_IDENTIFIER),
  // The bridge decides whether args are acceptable; here it only has to be JSON.
  args: z.unknown(),
});
const outputMessage = z.strictObject({
  type: z.literal("output"),
  stream: z.enum(["stdout", "stderr"]),
  // The runner cuts its chunks to this many UTF-16 units, as String.length counts them.
  data: z.string().max(PROTOCOL_LIMITS.outputChunkChars, CHUNK_TOO_LONG),
});
const doneMessage = z.strictObject({
  type: z.literal("done"),
  error: z.string().transform(keepLastChars).nullable(),
  // The exception the code raised, as data: its type's name and message, each cut here.
  exception: z
    .strictObject({
      type: z.string().transform((text) => keepFirstChars(text, EXCEPTION_TYPE_MAX_CHARS)),
      message: z.string().transform((text) => keepFirstChars(text, DONE_ERROR_MAX_CHARS)),
    })
    .optional(),
  // The runner's check found mistakes in the code's calls before its first statement ran: the
  // session accepts it only as the run's first message (nothing can have run before it).
  check: z.literal(true).optional(),
});
/** The longest exception type name kept (the runner sends at most 200 characters). */
const EXCEPTION_TYPE_MAX_CHARS = 200;

/** The first `max` UTF-16 units of `text`, never ending in the middle of a surrogate pair. */
function keepFirstChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
/** Checked by a loop, not a regex: the name is sandbox text, and this is plainly linear. */
function isImageName(name: string): boolean {
  // Ends in .png with something before it, as the runner names them: never "." or "..", so the
  // name is safe as a file name (codemode run --images writes it).
  if (name.length <= 4 || name.length > IMAGE_LIMITS.nameMaxChars) return false;
  if (!name.endsWith(".png")) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) || // 0-9
      (c >= 0x41 && c <= 0x5a) || // A-Z
      (c >= 0x61 && c <= 0x7a) || // a-z
      c === 0x2e || // .
      c === 0x5f || // _
      c === 0x2d; // -
    if (!ok) return false;
  }
  return true;
}

/** Images are numbered 1, 2, ... in order; the receiver checks the order. */
const imageId = z.number().int().positive().max(IMAGE_LIMITS.perRun, TOO_MANY_IMAGES);
// An image: its start declares the size, base64 chunks follow, its end closes it. The session
// (image-receiver.ts) checks the order, the sizes against what was declared, and the bytes.
const imageStartMessage = z.strictObject({
  type: z.literal("image_start"),
  id: imageId,
  name: z
    .string()
    .max(IMAGE_LIMITS.nameMaxChars, IMAGE_NAME_BAD)
    .refine(isImageName, IMAGE_NAME_BAD),
  bytes: z.number().int().positive().max(IMAGE_LIMITS.maxBytes, IMAGE_TOO_BIG),
});
const imageDataMessage = z.strictObject({
  type: z.literal("image_data"),
  id: imageId,
  data: z.string().max(IMAGE_LIMITS.chunkChars, IMAGE_CHUNK_TOO_LONG),
});
const imageEndMessage = z.strictObject({ type: z.literal("image_end"), id: imageId });

/** A plain file name as the runner makes it: ASCII letters, digits, `.`, `_`, `-`; never `.` or `..`. */
export function isPlainFileName(name: string, max: number): boolean {
  if (name.length === 0 || name.length > max || name === "." || name === "..") return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x2e ||
      c === 0x5f ||
      c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

/** `type/subtype` of RFC 6838's token characters, checked by a loop (the text is the sandbox's). */
function isPlainMime(mime: string): boolean {
  const slash = mime.indexOf("/");
  if (slash <= 0 || slash === mime.length - 1 || mime.indexOf("/", slash + 1) !== -1) return false;
  for (let i = 0; i < mime.length; i++) {
    if (i === slash) continue;
    const c = mime.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      "!#$&^_.+-".includes(mime.charAt(i));
    if (!ok) return false;
  }
  return true;
}

/** Files are numbered 1, 2, ... in order; the receiver checks the order. */
const fileId = z.number().int().positive().max(ATTACH_LIMITS.perRun, TOO_MANY_FILES);
// An attached file, sent as images are: a start declaring its size, base64 chunks, an end.
const fileStartMessage = z.strictObject({
  type: z.literal("file_start"),
  id: fileId,
  name: z
    .string()
    .max(ATTACH_LIMITS.nameMaxChars, FILE_NAME_BAD)
    .refine((name) => isPlainFileName(name, ATTACH_LIMITS.nameMaxChars), FILE_NAME_BAD),
  bytes: z.number().int().min(0).max(ATTACH_LIMITS.maxBytes, FILE_TOO_BIG),
  mime: z
    .string()
    .max(ATTACH_LIMITS.mimeMaxChars, FILE_MIME_BAD)
    .refine(isPlainMime, FILE_MIME_BAD),
});
const fileDataMessage = z.strictObject({
  type: z.literal("file_data"),
  id: fileId,
  data: z.string().max(ATTACH_LIMITS.chunkChars, FILE_CHUNK_TOO_LONG),
});
const fileEndMessage = z.strictObject({ type: z.literal("file_end"), id: fileId });

const runnerMessage = z.discriminatedUnion("type", [
  callMessage,
  outputMessage,
  doneMessage,
  imageStartMessage,
  imageDataMessage,
  imageEndMessage,
  fileStartMessage,
  fileDataMessage,
  fileEndMessage,
]);

export type RunnerMessage = z.infer<typeof runnerMessage>;

export type ParsedLine = { ok: true; message: RunnerMessage } | { ok: false; reason: string };

/**
 * A traceback's end is what says what went wrong, so the error keeps its last
 * DONE_ERROR_MAX_CHARS characters, never starting in the middle of a surrogate pair.
 */
function keepLastChars(text: string): string {
  const max = DONE_ERROR_MAX_CHARS;
  if (text.length <= max) return text;
  let start = text.length - max;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  return text.slice(start);
}

/**
 * The two messages a run sends most (a call, an output chunk), when well formed: exactly their
 * keys, each of the right type and within its bound. Checks the same things as their schemas
 * above, by hand, at a fraction of zod's cost per line (bench/bridge-overhead.ts); anything else,
 * including every malformed call or chunk, goes to the schemas, which say what is wrong.
 */
function fastMessage(value: unknown): RunnerMessage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  const keys = Object.keys(m).length;
  if (m.type === "call" && keys === 4 && Object.hasOwn(m, "args")) {
    const { id, tool } = m;
    if (
      typeof id === "number" &&
      Number.isInteger(id) &&
      id > 0 &&
      id <= Number.MAX_SAFE_INTEGER &&
      typeof tool === "string" &&
      tool.length <= PROTOCOL_LIMITS.toolNameMaxChars &&
      IDENTIFIER.test(tool)
    ) {
      return { type: "call", id, tool, args: m.args };
    }
    return undefined;
  }
  if (m.type === "output" && keys === 3) {
    const { stream, data } = m;
    if (
      (stream === "stdout" || stream === "stderr") &&
      typeof data === "string" &&
      data.length <= PROTOCOL_LIMITS.outputChunkChars
    ) {
      return { type: "output", stream, data };
    }
  }
  return undefined;
}

const LINE_PADDED = "a line from the sandbox was padded with what JSON leaves out";
/** The longest a character's JSON can be: a `\uXXXX` escape of one UTF-16 unit. */
const JSON_CHARS_PER_UNIT_MAX = 6;

/**
 * Whether `line` is longer than any compact JSON of `message` could be. Each line costs a parse
 * of all of it, and the message cap counts lines, not bytes: output chunks padded with what
 * JSON.parse throws away (whitespace, a key given twice, zeros after a number's point) let
 * 100,000 lines of 128 KiB through, which kept the host's thread busy for a run's whole
 * deadline. The runner writes compact JSON. Calls are left out: each counts toward the run's
 * budget of calls (and an honest call's big integer is longer in Python's JSON than in
 * JavaScript's); so is `done`, which ends the run. Short lines are not measured at all.
 */
function isPadded(line: string, message: RunnerMessage): boolean {
  if (line.length <= LINE_SLACK_CHARS) return false;
  let compact: number;
  switch (message.type) {
    case "call":
    case "done":
      return false;
    case "output":
    case "image_data":
    case "file_data":
      // Its string and the keys around it; no need to build the JSON of a chunk.
      compact = message.data.length + message.type.length + 20;
      break;
    default:
      compact = JSON.stringify(message).length;
  }
  return line.length > JSON_CHARS_PER_UNIT_MAX * compact + LINE_SLACK_CHARS;
}

export function parseRunnerLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: "a line from the sandbox was not JSON" };
  }
  const fast = fastMessage(value);
  const parsed: ParsedLine =
    fast !== undefined ? { ok: true, message: fast } : checkBySchema(value);
  if (parsed.ok && isPadded(line, parsed.message)) return { ok: false, reason: LINE_PADDED };
  return parsed;
}

/** A parsed line checked by the schemas alone (exported for the test that pins fastMessage). */
export function checkBySchema(value: unknown): ParsedLine {
  const parsed = runnerMessage.safeParse(value);
  if (!parsed.success) {
    // Our own messages only (set above), never text from the line: the reason reaches the
    // audit log and the user.
    const ours = parsed.error.issues.find((issue) => OUR_REASONS.has(issue.message));
    return {
      ok: false,
      reason: ours ? ours.message : "a line from the sandbox was not a known message",
    };
  }
  return { ok: true, message: parsed.data };
}

/** A start line's `tools` when the runner is to use the catalog staged before it. */
export const STAGED_TOOLS = "staged";

export interface StartMessage {
  type: "start";
  /** The catalog, or the one staged before (run-session's startLine splices the catalog in). */
  tools:
    | { name: string; stub: string; description: string; schema: string | null }[]
    | typeof STAGED_TOOLS;
  code: string;
  stdin: string;
  /** Servers not running: names starting with `prefix` raise ToolError with the reason. */
  down: { prefix: string; server: string; reason: string }[];
  /**
   * Tools held for the user's review: a name the code uses raises ToolError(message).
   * Absent: none (the runner takes it as empty, as the benches' start lines leave it out).
   */
  held?: { name: string; message: string }[];
  limits: {
    args_max_bytes: number;
    output_chunk_chars: number;
    error_max_chars: number;
    images_per_run: number;
    image_max_bytes: number;
    images_total_bytes: number;
    image_chunk_chars: number;
    image_name_max_chars: number;
    image_max_side: number;
    search_default_results: number;
    search_max_results: number;
    search_query_max_chars: number;
    attach_per_run: number;
    attach_max_bytes: number;
    attach_total_bytes: number;
    attach_chunk_chars: number;
    attach_name_max_chars: number;
    attach_mime_max_chars: number;
  };
  /**
   * The run's workspace (absent: none): its name, and how execution beneath it is denied
   * ("landlock": the runner asks the kernel; "mount": the engine mounted it noexec; "filter":
   * the runner's seccomp filter keeps any file from being made executable).
   */
  workspace?: { name: string; deny_exec: "landlock" | "mount" | "filter" };
}

export type ResultMessage =
  | { type: "result"; id: number; ok: true; value: string }
  | { type: "result"; id: number; ok: false; message: string };

export function encodeHostMessage(message: StartMessage | ResultMessage): string {
  // JSON.stringify escapes control characters ("\n" among them), so one message is one line.
  // U+2028/2029 stay as they are: the runner splits lines on "\n" alone.
  return JSON.stringify(message) + "\n";
}

import { z } from "zod";
import { PROTOCOL_LIMITS } from "../../../shared/limits.js";

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
const OUR_REASONS: ReadonlySet<string> = new Set([
  TOOL_TOO_LONG,
  TOOL_NOT_IDENTIFIER,
  CHUNK_TOO_LONG,
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
});
const runnerMessage = z.discriminatedUnion("type", [callMessage, outputMessage, doneMessage]);

export type RunnerMessage = z.infer<typeof runnerMessage>;

export type ParsedLine = { ok: true; message: RunnerMessage } | { ok: false; reason: string };

/**
 * A traceback's end is what says what went wrong, so the error keeps its last
 * PROTOCOL_LIMITS.doneErrorMaxChars characters, never starting in the middle of a surrogate pair.
 */
function keepLastChars(text: string): string {
  const max = PROTOCOL_LIMITS.doneErrorMaxChars;
  if (text.length <= max) return text;
  let start = text.length - max;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  return text.slice(start);
}

export function parseRunnerLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: "a line from the sandbox was not JSON" };
  }
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

export interface StartMessage {
  type: "start";
  code: string;
  stdin: string;
  tools: { name: string; stub: string }[];
  /** Servers not running: names starting with `prefix` raise ToolError with the reason. */
  down: { prefix: string; server: string; reason: string }[];
  limits: { args_max_bytes: number; output_chunk_chars: number; error_max_chars: number };
}

export type ResultMessage =
  | { type: "result"; id: number; ok: true; value: string }
  | { type: "result"; id: number; ok: false; message: string };

export function encodeHostMessage(message: StartMessage | ResultMessage): string {
  // JSON.stringify escapes U+2028/2029 and control characters, so one message is one line.
  return JSON.stringify(message) + "\n";
}

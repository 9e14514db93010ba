import { z } from "zod";
import { PROTOCOL_LIMITS } from "../../../shared/limits.js";

// Shapes of what the runner may send (see runner-protocol.md). Objects are strict:
// an extra key is as much a protocol violation as a missing one.
const callMessage = z.strictObject({
  type: z.literal("call"),
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  tool: z.string().max(PROTOCOL_LIMITS.toolNameMaxChars),
  // The bridge decides whether args are acceptable; here it only has to be JSON.
  args: z.unknown(),
});
const outputMessage = z.strictObject({
  type: z.literal("output"),
  stream: z.enum(["stdout", "stderr"]),
  data: z.string(),
});
const doneMessage = z.strictObject({
  type: z.literal("done"),
  error: z.string().nullable(),
});
const runnerMessage = z.discriminatedUnion("type", [callMessage, outputMessage, doneMessage]);

export type RunnerMessage = z.infer<typeof runnerMessage>;

export type ParsedLine = { ok: true; message: RunnerMessage } | { ok: false; reason: string };

export function parseRunnerLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: "a line from the sandbox was not JSON" };
  }
  const parsed = runnerMessage.safeParse(value);
  if (!parsed.success) {
    return { ok: false, reason: "a line from the sandbox was not a known message" };
  }
  return { ok: true, message: parsed.data };
}

export interface StartMessage {
  type: "start";
  code: string;
  stdin: string;
  tools: { name: string; stub: string }[];
  limits: { args_max_bytes: number; output_chunk_chars: number; error_max_chars: number };
}

export type ResultMessage =
  | { type: "result"; id: number; ok: true; value: string }
  | { type: "result"; id: number; ok: false; message: string };

export function encodeHostMessage(message: StartMessage | ResultMessage): string {
  // JSON.stringify escapes U+2028/2029 and control characters, so one message is one line.
  return JSON.stringify(message) + "\n";
}

// The bridge's checks of one call and the verdicts it gives: what the code is told, and what
// the call's event records. Pure functions of the call, its tool and its result.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { sha256Hex } from "../../util/sha256-hex.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { CallOutcome, ToolErrorReason } from "../ports/run-types.js";
import type { BridgeCallEvent } from "./bridge-events.js";
import { jsonUtf8Bytes } from "../../util/json-bytes.js";
import { bounded, errorTypeName, schemaErrorText } from "./messages.js";
import { errorText, resultToString } from "./tool-result.js";
import { resultForm } from "./result-form.js";
import { argumentProblems } from "./argument-problems.js";

/** The parts of a call event that depend on the outcome. */
export type Verdict = Pick<
  BridgeCallEvent,
  | "decision"
  | "reason"
  | "detail"
  | "resultBytes"
  | "resultHash"
  | "oneByOneBytes"
  | "oneByOneMediaBytes"
> & { outcome: CallOutcome };

/**
 * Bytes of the base64 data of the images and audio in a result's content: a model sees an
 * image or hears audio, it does not read their bytes as text, so the receipt counts them apart.
 */
function mediaBytes(content: CallToolResult["content"]): number {
  let total = 0;
  for (const item of Array.isArray(content) ? content : []) {
    if ((item.type === "image" || item.type === "audio") && typeof item.data === "string") {
      // Base64 is ASCII: one byte a character.
      total += item.data.length;
    }
  }
  return total;
}

export function once(fn: (() => void) | undefined): () => void {
  let called = false;
  return () => {
    if (called || fn === undefined) return;
    called = true;
    fn();
  };
}

export type Encoded =
  { kind: "json"; json: string; bytes: number } | { kind: "not-json"; bytes: 0 };

export function encodeArgs(args: unknown): Encoded {
  try {
    const json = JSON.stringify(args);
    // JSON.stringify returns undefined for undefined, functions and symbols.
    if (typeof json !== "string") return { kind: "not-json", bytes: 0 };
    return { kind: "json", json, bytes: Buffer.byteLength(json, "utf8") };
  } catch {
    // Cycles and BigInt; the runner sends parsed JSON, so only a bug gets here.
    return { kind: "not-json", bytes: 0 };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Returns undefined when the arguments pass, else what was wrong: as the `params: dict` form's
 * message says it, and as one line naming each argument (argument-problems.ts).
 */
export function checkSchema(
  tool: CatalogTool,
  args: Record<string, unknown>,
): { text: string; problems: string } | undefined {
  try {
    if (tool.validate(args) === true) return undefined;
    const errors = tool.validate.errors;
    return { text: schemaErrorText(errors), problems: argumentProblems(errors, args) };
  } catch {
    // A validator that throws cannot vouch for the arguments: refuse rather than send.
    return { text: "they could not be checked", problems: "its arguments could not be checked" };
  }
}

/** Why a call failed, for the code (ToolError.reason), and what was wrong without the name. */
export interface Why {
  reason: ToolErrorReason;
  detail?: string | undefined;
}

export function judgeResult(shown: string, result: CallToolResult, tool: CatalogTool): Verdict {
  let text: string;
  try {
    text = result.isError === true ? errorText(result) : resultToString(result);
  } catch (error) {
    return fault(shown, error);
  }
  const resultBytes = Buffer.byteLength(text, "utf8");
  const resultHash = sha256Hex(text);
  // What a client calling the tool itself would have been sent: the result's content as JSON.
  const oneByOneBytes = jsonUtf8Bytes(result.content);
  const oneByOneMediaBytes = mediaBytes(result.content);
  const measured = { resultBytes, resultHash, oneByOneBytes, oneByOneMediaBytes };

  if (result.isError === true) {
    const said = text.trim() === "" ? "(no details)" : text;
    return {
      ...refusal("failed", `${shown} returned an error: ${said}`, {
        reason: "server_error",
        detail: `the server answered with an error: ${said}`,
      }),
      ...measured,
    };
  }
  if (resultBytes > BRIDGE_LIMITS.resultMaxBytes) {
    const size =
      `${resultBytes} bytes, over the limit of ` +
      `${BRIDGE_LIMITS.resultMaxBytes} bytes, so it was refused, not cut. ` +
      `Ask the tool for less (a narrower query, fewer items, a page).`;
    return {
      ...refusal("refused", `The result of ${shown} is ${size}`, {
        reason: "refused",
        detail: `its result is ${size}`,
      }),
      ...measured,
    };
  }
  let form: ReturnType<typeof resultForm>;
  try {
    form = resultForm(tool, result);
  } catch (error) {
    return fault(shown, error);
  }
  return { decision: "allowed", outcome: { ok: true, value: text, ...form }, ...measured };
}

export function refusal(decision: "refused" | "failed", message: string, why?: Why): Verdict {
  const reason = bounded(message);
  const outcome: CallOutcome = { ok: false, message: reason };
  if (why !== undefined) {
    outcome.reason = why.reason;
    if (why.detail !== undefined) outcome.detail = bounded(why.detail);
  }
  return { decision, reason, outcome };
}

export function cancelled(shown: string): Verdict {
  return refusal("failed", `${shown} was cancelled because the run was stopped (AbortError).`, {
    reason: "refused",
    detail: "cancelled because the run was stopped",
  });
}

export function fault(shown: string, error: unknown): Verdict {
  const detail =
    error instanceof Error ? error.message : typeof error === "string" ? error : undefined;
  const type = errorTypeName(error);
  return {
    ...refusal("failed", `${shown} failed on the host side (${type}).`, {
      reason: "server_error",
      detail: `failed on the host side (${type})`,
    }),
    // For the user's own log; never part of the outcome.
    ...(detail !== undefined ? { detail: bounded(detail) } : {}),
  };
}

/** How a call that went out settled: with its value, or with why not (never a rejection). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

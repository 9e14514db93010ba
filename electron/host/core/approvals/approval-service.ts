// "Ask first": a call to a tool the user marked ask-first, once it has passed every other check
// of the bridge, waits here for the user. The question is shown in the app and the browser UI
// (approvals.changed) and, when the client supports MCP elicitation, also sent to the client;
// the first answer from any side wins. Unanswered within the setting's time, or by its run's
// deadline if that comes first, or when the run ends, the call does not go out.
//
// A question never waits past its run's deadline, rather than the deadline pausing while a
// person is asked: the code keeps running while one call waits (other tasks, threads), so a
// paused deadline would give it time nobody allowed; and the default deadline is set to end a
// run before MCP clients stop waiting for its result (RUN_LIMITS.defaultDeadlineSeconds), which
// a pause would overrun, leaving the model with a timeout and no word of the question.
import { randomUUID } from "node:crypto";
import type { ApprovalView } from "../../../../shared/api/api-views.js";
import type { ApprovalAnswer, Approver, AuditEntryInput } from "../../../../shared/audit-entry.js";
import { APPROVAL_LIMITS } from "../../../../shared/limits.js";
import { redactArgs } from "../secrets/redaction.js";
import { maskDeep, maskSecrets } from "../secrets/secret-mask.js";
import { cutCodePoints, cutMiddleUtf8 } from "../../util/text-cut.js";
import { escapeUnseen } from "./escape-unseen.js";
import type {
  ApprovalChoice,
  ApprovalGate,
  ApprovalOutcome,
  ApprovalRequest,
} from "../bridge/approval-gate.js";
import { KiB } from "../../util/units.js";

/**
 * The run's code as the panel shows it (collapsed) is cut to this many UTF-8 bytes, its middle
 * taken out: filler at its start cannot push what the code does out of sight.
 */
export const APPROVAL_CODE_SHOWN_MAX_BYTES = 16 * KiB;

/** Requests waiting at once, across all runs; past it a call is denied without asking. */
export const APPROVAL_PENDING_MAX = 64;

/**
 * The arguments as the panel shows them: pretty JSON up to this many characters, else compact
 * JSON, whole (APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS).
 */
export const APPROVAL_ARGS_SHOWN_MAX_CHARS = 4 * KiB;

/**
 * Compact JSON of arguments too long to show pretty is shown whole up to this: three times
 * BRIDGE_LIMITS.argsMaxBytes, room for the code points shown as escapes (an escape is at most
 * three times its code point's UTF-8 bytes; a "[secret]" mark is no longer than a secret). A
 * call's arguments never pass it, so the user never allows a call whose arguments were cut
 * out of sight.
 */
export const APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS = 48 * KiB;

/** The question sent to a client by MCP elicitation is cut to this. */
export const APPROVAL_ELICIT_MESSAGE_MAX_CHARS = 2 * KiB;

export interface ApprovalServiceOptions {
  asksFirst: (server: string, tool: string) => boolean;
  /** Whether the tool's arguments stay out of the audit log (hideArgs); none do unless said. */
  hidesArgs?: (server: string, tool: string) => boolean;
  record: (entry: AuditEntryInput) => void;
  /** Told of the waiting requests whenever one starts or stops waiting. */
  changed: (views: ApprovalView[]) => void;
  /** Secret values of the config, read at each request: masked in everything shown. */
  secrets: () => readonly string[];
  timeoutSeconds: number;
  /**
   * False where no app or browser can answer (`serve`): a question the client cannot be asked
   * is denied at once rather than left to time out.
   */
  userPresent?: boolean;
  now?: () => number;
}

interface Pending {
  view: ApprovalView;
  request: ApprovalRequest;
  askedAt: number;
  settle: (outcome: ApprovalOutcome) => void;
}

const ANSWERS_WORDS: Record<ApprovalChoice, string> = {
  allow_once: "Allow once",
  allow_run: "Allow for the rest of this run",
  deny: "Deny",
};

/** The requested schema of the question sent to a client: one choice. */
export const ELICIT_SCHEMA = {
  type: "object" as const,
  properties: {
    answer: {
      type: "string" as const,
      title: "Your answer",
      enum: Object.keys(ANSWERS_WORDS),
      enumNames: Object.values(ANSWERS_WORDS),
    },
  },
  required: ["answer"],
};

export class ApprovalService implements ApprovalGate {
  readonly #pending = new Map<string, Pending>();
  readonly #options: ApprovalServiceOptions;
  #timeoutMs: number;
  readonly #now: () => number;

  constructor(options: ApprovalServiceOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutSeconds * 1000;
    this.#now = options.now ?? Date.now;
  }

  setTimeoutSeconds(seconds: number): void {
    this.#timeoutMs = seconds * 1000;
  }

  asksFirst(server: string, tool: string): boolean {
    return this.#options.asksFirst(server, tool);
  }

  list(): ApprovalView[] {
    return [...this.#pending.values()].map((p) => ({ ...p.view }));
  }

  /** The user's answer from the app or the browser; false when it is no longer waiting. */
  answer(id: string, choice: ApprovalChoice, by: Approver): boolean {
    const pending = this.#pending.get(id);
    if (pending === undefined) return false;
    pending.settle({ answer: choice, by });
    return true;
  }

  ask(request: ApprovalRequest): Promise<ApprovalOutcome> {
    const id = randomUUID();
    const askedAt = this.#now();
    const secrets = this.#options.secrets();
    const base = {
      requestId: id,
      runId: request.runId,
      client: request.client,
      server: request.server,
      tool: request.pyName,
      serverTool: request.tool,
    };
    // Too many questions at once: a loop of calls must not flood the user. Denied, on record.
    const nobody = request.elicit === undefined && this.#options.userPresent === false;
    if (this.#pending.size >= APPROVAL_PENDING_MAX || request.signal.aborted || nobody) {
      const answer: ApprovalAnswer = request.signal.aborted ? "cancelled" : "deny";
      this.#options.record({ kind: "approval_answered", ...base, answer, by: null, waitedMs: 0 });
      return Promise.resolve({ answer, by: null });
    }
    const runDeadline = request.maxWaitMs !== undefined && request.maxWaitMs < this.#timeoutMs;
    // Whole milliseconds, as the audit log counts them; rounded down, to end within the run.
    const waitMs = runDeadline ? Math.max(0, Math.floor(request.maxWaitMs ?? 0)) : this.#timeoutMs;
    // Too little of the run left to ask anyone: a question that vanishes as it appears helps
    // nobody. Unanswered, on record, as if it had timed out at once.
    if (waitMs < APPROVAL_LIMITS.minWaitMs) {
      this.#options.record({
        kind: "approval_answered",
        ...base,
        answer: "timeout",
        by: null,
        waitedMs: 0,
      });
      return Promise.resolve({ answer: "timeout", by: null, waitedMs: 0, runDeadline: true });
    }
    const elicit = request.elicit;
    this.#options.record({
      kind: "approval_requested",
      ...base,
      args: redactArgs(request.args, {
        hidden: this.#options.hidesArgs?.(request.server, request.tool) ?? false,
        secrets,
      }),
      elicited: elicit !== undefined,
    });
    const view: ApprovalView = {
      id,
      runId: request.runId,
      client: request.client,
      server: request.server,
      tool: request.tool,
      pyName: request.pyName,
      args: shownArgs(request.args, secrets),
      // Escaped too: bidi controls in a comment or a string can make code read as other code
      // ("Trojan Source").
      code: cutMiddleUtf8(
        escapeUnseen(maskSecrets(request.code, secrets)),
        APPROVAL_CODE_SHOWN_MAX_BYTES,
      ),
      codeBytes: Buffer.byteLength(request.code),
      private: request.private,
      askedAt: new Date(askedAt).toISOString(),
      expiresAt: new Date(askedAt + waitMs).toISOString(),
      untilRunDeadline: runDeadline,
      elicited: elicit !== undefined,
    };
    return new Promise<ApprovalOutcome>((resolve) => {
      const withdraw = new AbortController();
      const settle = (outcome: ApprovalOutcome): void => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        withdraw.abort();
        this.#options.record({
          kind: "approval_answered",
          ...base,
          answer: outcome.answer,
          by: outcome.by,
          waitedMs: outcome.waitedMs ?? Math.max(0, this.#now() - askedAt),
        });
        this.#changed();
        resolve(outcome);
      };
      const timer = setTimeout(
        () =>
          settle({
            answer: "timeout",
            by: null,
            // Node may fire a timer up to a millisecond early by the clock: a question that
            // timed out waited its whole time, and the audit log says so.
            waitedMs: Math.max(waitMs, this.#now() - askedAt),
            ...(runDeadline ? { runDeadline } : {}),
          }),
        waitMs,
      );
      const onAbort = (): void => settle({ answer: "cancelled", by: null });
      request.signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, { view, request, askedAt, settle });
      this.#changed();
      if (elicit !== undefined) {
        const message = elicitMessage(request, view.args);
        void elicit(message, withdraw.signal).then(
          (choice) => {
            if (choice !== null) settle({ answer: choice, by: "client" });
          },
          // A client that fails to answer leaves the question to the app.
          () => undefined,
        );
      }
    });
  }

  /** Withdraws every question (the app is stopping): those calls do not go out. */
  close(): void {
    for (const pending of [...this.#pending.values()]) {
      pending.settle({ answer: "cancelled", by: null });
    }
  }

  #changed(): void {
    try {
      this.#options.changed(this.list());
    } catch {
      // A broken subscriber must not stop the question from being asked or answered.
    }
  }
}

/**
 * The arguments as the panel shows them, every secret occurrence masked and every code point that
 * hides or reorders text escaped: pretty JSON when it is short, else compact JSON, whole. The code
 * chooses the arguments, so a cut would let it put what matters past the cut (a long harmless field
 * first) and have the user allow a call they could not see; the panel scrolls instead. Pretty JSON
 * is built only from short compact JSON: its indentation grows with the square of the nesting.
 */
export function shownArgs(args: Record<string, unknown>, secrets: readonly string[]): string {
  // Numbers too, as the log masks them: the panel shows what the log will.
  const redacted = maskDeep(args, secrets, { numbers: true });
  // Code points that hide or reorder text are shown as their escapes (escape-unseen.ts).
  const compact = escapeUnseen(JSON.stringify(redacted));
  if (compact.length <= APPROVAL_ARGS_SHOWN_MAX_CHARS) {
    const pretty = escapeUnseen(JSON.stringify(redacted, null, 2));
    if (pretty.length <= APPROVAL_ARGS_SHOWN_MAX_CHARS) return pretty;
  }
  return cutCodePoints(compact, APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS);
}

/**
 * The question as the client shows it. The arguments of a private tool are left out: the
 * client's conversation must not receive what the code found in private data.
 */
function elicitMessage(request: ApprovalRequest, args: string): string {
  const head =
    `Code Mode: the code of a run wants to call ${request.tool} on ${request.server}. ` +
    `Allow it?`;
  const body = request.private
    ? "(the tool is private: its arguments are shown only in the app)"
    : `Arguments:\n${args}`;
  const message = `${head}\n${body}`;
  if ([...message].length <= APPROVAL_ELICIT_MESSAGE_MAX_CHARS) return message;
  // Cut, the client would show the start of the arguments as if it were all of them.
  return cutCodePoints(
    `${head}\nThe arguments are too long to show here (${args.length} characters): ` +
      `see them in the Code Mode app before allowing.`,
    APPROVAL_ELICIT_MESSAGE_MAX_CHARS,
  );
}

import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../../../../shared/limits.js";
import type { Catalog, CatalogTool } from "../catalog/catalog-types.js";
import type { CallOutcome } from "../ports/run-types.js";
import { askFirst, type AskingRun } from "./ask-first.js";
import type { BridgeEventSink } from "./bridge-events.js";
import type { BridgeOptions, RunCalls, StartRunOptions } from "./bridge-types.js";
import { CallBudget } from "./call-budget.js";
import { CallSender } from "./call-sender.js";
import {
  cancelled,
  checkSchema,
  encodeArgs,
  fault,
  isPlainObject,
  judgeResult,
  once,
  refusal,
  type Verdict,
  type Why,
} from "./call-verdicts.js";
import {
  changedWhileWaiting,
  closeNames,
  eventName,
  formatSeconds,
  logDownMessage,
  pythonTypeName,
  quoteName,
} from "./messages.js";
import { maskOutcome } from "./outcome-mask.js";
import { sameTerms } from "./same-terms.js";
import { taintRefusal, type TaintRegistry } from "./taint.js";

export type { CallOutcome };
export type { BridgeOptions, RunCalls, StartRunOptions } from "./bridge-types.js";

interface RunState extends AskingRun {
  maxCalls: number;
  budget: CallBudget;
  onBudgetSpent: () => void;
}

/** The room set aside in the audit log for one call's entry, once it has been let out. */
interface Held {
  reserved?: number;
}

/**
 * The one place every tool call from the sandbox is checked. Per call, in this order:
 * (1) the run has calls left (first, so a spent budget costs nothing), (2) the name is a tool
 * in the catalog (which holds only allowed tools), (3) the arguments are a JSON object within
 * the size limit, (4) they satisfy the tool's schema, (5) the taint rule, (6) the audit log can
 * be written and has room for the call's entry, (7) the user's "ask first" approval where set.
 * Only then does the call reach the server, and its result is refused when too large. Every
 * call yields exactly one event.
 */
export class Bridge {
  readonly #catalog: () => Catalog;
  readonly #taint: TaintRegistry;
  readonly #events: BridgeEventSink;
  readonly #callTimeoutMs: number;
  readonly #now: () => number;
  readonly #secrets: () => readonly string[];
  readonly #approvals: BridgeOptions["approvals"];
  readonly #sender: CallSender;

  constructor(options: BridgeOptions) {
    this.#catalog = options.catalog;
    this.#taint = options.taint;
    this.#events = options.events;
    const serverConcurrency = options.serverConcurrency ?? BRIDGE_LIMITS.defaultServerConcurrency;
    this.#callTimeoutMs = options.callTimeoutMs ?? BRIDGE_LIMITS.callTimeoutMs;
    this.#now = options.now ?? Date.now;
    this.#secrets = options.secrets ?? (() => []);
    this.#approvals = options.approvals;
    if (!Number.isInteger(serverConcurrency) || serverConcurrency < 1) {
      throw new RangeError("serverConcurrency must be a positive integer");
    }
    if (!(this.#callTimeoutMs > 0)) throw new RangeError("callTimeoutMs must be positive");
    this.#sender = new CallSender(options.caller, {
      serverConcurrency,
      callTimeoutMs: this.#callTimeoutMs,
      now: this.#now,
    });
  }

  startRun(options: StartRunOptions): RunCalls {
    const maxCalls = options.maxCalls ?? BRIDGE_LIMITS.defaultMaxCallsPerRun;
    if (
      !Number.isInteger(maxCalls) ||
      maxCalls < 0 ||
      maxCalls > BRIDGE_LIMITS.maxCallsPerRunCeiling
    ) {
      throw new RangeError(
        `maxCalls must be an integer from 0 to ${BRIDGE_LIMITS.maxCallsPerRunCeiling}`,
      );
    }
    const state: RunState = {
      runId: options.runId,
      client: options.client,
      code: options.code ?? "",
      elicit: options.elicit,
      allowedForRun: new Set(),
      maxCalls,
      signal: options.signal,
      timeLeftMs: options.timeLeftMs,
      waiting: new Map(),
      budget: new CallBudget(maxCalls),
      onBudgetSpent: once(options.onBudgetSpent),
    };
    const inFlight = new Set<Promise<CallOutcome>>();
    return {
      runId: state.runId,
      client: state.client,
      maxCalls,
      get count() {
        return state.budget.calls;
      },
      get pastBudget() {
        return state.budget.pastBudget;
      },
      waitingForUser: () => [...state.waiting.values()],
      call: (pyName: string, args: unknown) => {
        const call = this.#guarded(state, pyName, args);
        inFlight.add(call);
        void call.finally(() => inFlight.delete(call));
        return call;
      },
      settled: async () => {
        await Promise.allSettled([...inFlight]);
      },
    };
  }

  /**
   * The session layer gets an outcome, never an exception: a bug on this side (a catalog
   * getter that throws, say) reaches the code only by its type name, like any host fault.
   */
  async #guarded(run: RunState, pyName: unknown, args: unknown): Promise<CallOutcome> {
    return this.#masked(await this.#unmasked(run, pyName, args));
  }

  /** Secrets stay with their server: no result, error or refusal carries one to the code. */
  #masked(outcome: CallOutcome): CallOutcome {
    let secrets: readonly string[];
    try {
      secrets = this.#secrets();
    } catch {
      // Without the list nothing can be vouched for: give the code no text at all.
      return { ok: false, message: "The call's outcome could not be checked for secrets." };
    }
    if (secrets.length === 0) return outcome;
    return maskOutcome(outcome, secrets);
  }

  async #unmasked(run: RunState, pyName: unknown, args: unknown): Promise<CallOutcome> {
    const started = this.#now();
    const held: Held = {};
    try {
      return await this.#call(run, pyName, args, held);
    } catch (error) {
      const name = typeof pyName === "string" ? pyName : String(pyName);
      const { outcome, ...rest } = fault(quoteName(name), error);
      const ended = this.#now();
      this.#emit({
        kind: "call",
        runId: run.runId,
        client: run.client,
        tool: eventName(name),
        ...rest,
        argBytes: 0,
        durationMs: Math.max(0, ended - started),
        private: false,
        at: new Date(ended),
        reserved: held.reserved,
      });
      return outcome;
    }
  }

  /**
   * Everything up to the first `await` (in CallSender.send, or the "ask first" wait) runs
   * synchronously: the budget count, the room in the log, the taint check and the taint set
   * cannot interleave with another call of this run or of another run of the same client.
   * After the wait the taint check runs again in the stretch that ends with the taint set.
   * Keep it that way.
   */
  async #call(run: RunState, pyName: unknown, args: unknown, held: Held): Promise<CallOutcome> {
    const started = this.#now();
    // Every call counts toward the budget, refused ones included, as in the reference
    // design: a loop that keeps making bad calls still uses the budget up, and the count
    // the user sees is what the code asked for, not what got through.
    const budget = run.budget.take();
    const name = typeof pyName === "string" ? pyName : String(pyName);
    const shown = quoteName(name);

    // (1) Budget, before anything else: a call past it costs no lookup, no schema check and
    // no log line of its own (one entry counts them all), and a run that keeps on is stopped.
    if (budget !== "within") {
      this.#emit({
        kind: "past_budget",
        runId: run.runId,
        client: run.client,
        tool: eventName(name),
        at: new Date(this.#now()),
      });
      if (budget === "stop") run.onBudgetSpent();
      const spent =
        `refused: this run has used its budget of ${run.maxCalls} tool calls ` +
        `(every call counts, refused ones too)`;
      return refusal("refused", `${shown} ${spent}.`, { reason: "budget", detail: spent }).outcome;
    }
    const encoded = encodeArgs(args);
    const tool = typeof pyName === "string" ? this.#catalog().byPyName.get(pyName) : undefined;

    const finish = (verdict: Verdict): CallOutcome => {
      const { outcome, ...rest } = verdict;
      const ended = this.#now();
      this.#emit({
        kind: "call",
        runId: run.runId,
        client: run.client,
        server: tool?.server,
        tool: eventName(name),
        serverTool: tool?.tool,
        ...rest,
        argBytes: encoded.bytes,
        args: isPlainObject(args) ? args : undefined,
        durationMs: Math.max(0, ended - started),
        private: tool?.private ?? false,
        at: new Date(ended),
        reserved: held.reserved,
      });
      return outcome;
    };
    // `detail` is what was wrong without the name (the namespaced form's message names it).
    const refuse = (message: string, reason: Why["reason"], detail?: string): CallOutcome =>
      finish(refusal("refused", message, { reason, detail: detail ?? afterName(message, shown) }));

    // (2) Known tool. Nothing about an unknown name reaches any server.
    if (tool === undefined) {
      if (typeof pyName !== "string") return refuse("A tool name must be a string.", "refused");
      // Held for review (a call forged past the runner's stub): refused, saying why.
      const held = this.#catalog().held?.get(pyName);
      if (held !== undefined) return refuse(held, "refused", held);
      const near = closeNames(name, this.#catalog().byPyName.keys());
      const hint = near.length > 0 ? ` Did you mean ${near.join(", ")}?` : "";
      return refuse(
        `Unknown tool ${shown}: it is not among the tools this run may call.${hint} ` +
          `search_tools(query) lists the tools there are.`,
        "refused",
        "it is not among the tools this run may call (the tools changed since the run started)",
      );
    }

    // (3) A plain JSON object within the size limit.
    if (encoded.kind === "not-json") {
      const said = "its arguments could not be encoded as JSON";
      return refuse(`Arguments of ${shown} could not be encoded as JSON.`, "invalid", said);
    }
    if (!isPlainObject(args)) {
      const said = `must be a dict (a JSON object), not ${pythonTypeName(args)}`;
      return refuse(`Arguments of ${shown} ${said}.`, "invalid", `its arguments ${said}`);
    }
    if (encoded.bytes > BRIDGE_LIMITS.argsMaxBytes) {
      const said =
        `are ${encoded.bytes} bytes as JSON; ` + `the limit is ${BRIDGE_LIMITS.argsMaxBytes} bytes`;
      return refuse(`Arguments of ${shown} ${said}.`, "refused", `its arguments ${said}`);
    }

    // (4) The tool's schema. The copy parsed back from the JSON is what gets checked and
    // sent, so the server sees exactly the bytes that were measured and validated.
    const sendArgs = JSON.parse(encoded.json) as Record<string, unknown>;
    const schemaVerdict = checkSchema(tool, sendArgs);
    if (schemaVerdict !== undefined) {
      return refuse(
        `Arguments of ${shown} do not match its schema: ${schemaVerdict.text} ` +
          `(TOOLS[${shown}] shows its parameters).`,
        "invalid",
        schemaVerdict.problems,
      );
    }

    // (5) Taint: once a client has called a private tool, only private tools go out. A call
    // the rule refuses is refused without asking the user.
    const taintVerdict = taintRefusal(this.#taint, run.client, tool, shown);
    if (taintVerdict !== undefined) return refuse(taintVerdict, "private");

    // A stopped run sends nothing more, and so taints nothing more.
    if (run.signal.aborted) return finish(cancelled(shown));

    // (6) A log that is failing takes no call's entry: no call goes out unlogged.
    const unlogged = this.#logDown(shown);
    if (unlogged !== undefined) return refuse(unlogged, "refused");

    // Room in the log, set aside until the call's event: refusals that fill the run's
    // allowance while the call is out (or waits for the user) cannot push its entry out. A
    // call with no room left is refused, never sent unlogged. A sink that throws here is a
    // host fault (#unmasked): the call is not sent either.
    const room = this.#reserve(run, tool, name, encoded.bytes, args);
    if (room === null) {
      return refuse(
        `${shown} refused: this run has written as much to the audit log as one run may ` +
          `(${RUN_COST_LIMITS.auditBytesPerRun} bytes), so no more calls go out.`,
        "refused",
      );
    }
    held.reserved = room;

    // (7) "Ask first": the call waits for the user (ask-first.ts), at most until shortly before
    // the run's deadline, which keeps running; the call's own timeout starts only when it goes
    // out (CallSender.send).
    const asking = askFirst(this.#approvals, run, tool, sendArgs);
    if (asking !== undefined) {
      const decision = await asking;
      if (decision.kind === "cancelled") return finish(cancelled(shown));
      if (decision.kind === "refused") return refuse(decision.message, "denied", decision.message);
      // The wait let other calls run: the taint rule is checked again, in the same
      // synchronous stretch as the taint set below.
      const later = taintRefusal(this.#taint, run.client, tool, shown);
      if (later !== undefined) return refuse(later, "private");
      if (!this.#stillTheSame(tool)) return refuse(changedWhileWaiting(shown), "refused");
      const downSince = this.#logDown(shown);
      if (downSince !== undefined) return refuse(downSince, "refused");
    }

    // The call is now committed to go out: taint before it does, so no non-private call
    // can pass its check between this point and the private result reaching the code.
    // If it is then cancelled while queued, the client stays tainted; erring that way
    // costs availability, never data.
    if (tool.private) {
      const record = this.#taint.taint(run.client, {
        server: tool.server,
        tool: tool.tool,
        pyName: tool.pyName,
      });
      if (record !== undefined) {
        this.#emit({
          kind: "taint",
          runId: run.runId,
          client: run.client,
          server: tool.server,
          tool: tool.pyName,
          serverTool: tool.tool,
          at: record.at,
        });
      }
    }

    const sent = await this.#sender.send(run.signal, tool, sendArgs, () =>
      this.#stillTheSame(tool),
    );
    switch (sent.kind) {
      case "changed":
        return refuse(changedWhileWaiting(shown), "refused");
      case "timeout": {
        const after = `timed out after ${formatSeconds(this.#callTimeoutMs)}`;
        return finish(
          refusal("failed", `${shown} ${after} (TimeoutError).`, {
            reason: "timeout",
            detail: after,
          }),
        );
      }
      case "aborted":
        return finish(cancelled(shown));
      case "fault":
        return finish(fault(shown, sent.error));
      case "result":
        return finish(judgeResult(shown, sent.result, tool));
    }
  }

  /** Whether the catalog's tool is still the one the call was checked against (same-terms.ts). */
  #stillTheSame(tool: CatalogTool): boolean {
    return sameTerms(tool, this.#catalog().byPyName.get(tool.pyName));
  }

  /** The refusal of a call while the audit log cannot be written, or undefined. */
  #logDown(shown: string): string | undefined {
    const why = this.#events.unwritable?.() ?? null;
    return why === null ? undefined : logDownMessage(shown, why);
  }

  /**
   * The room the sink sets aside for the call's entry; undefined when the sink keeps no log,
   * null when there is none left. `args` is the object the call's event carries too.
   */
  #reserve(
    run: RunState,
    tool: CatalogTool,
    name: string,
    argBytes: number,
    args: Record<string, unknown>,
  ): number | null | undefined {
    if (this.#events.reserve === undefined) return undefined;
    return this.#events.reserve({
      runId: run.runId,
      client: run.client,
      server: tool.server,
      tool: eventName(name),
      serverTool: tool.tool,
      argBytes,
      args,
      private: tool.private,
    });
  }

  #emit(event: Parameters<BridgeEventSink["emit"]>[0]): void {
    try {
      this.#events.emit(event);
    } catch {
      // The decision has been made and, for allowed calls, carried out; a failing sink
      // must not turn it into a different answer for the code.
    }
  }
}

/** A message that starts with the tool's quoted name, without it: what the detail says. */
function afterName(message: string, shown: string): string {
  return message.startsWith(`${shown} `) ? message.slice(shown.length + 1) : message;
}

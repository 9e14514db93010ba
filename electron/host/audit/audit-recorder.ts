import type { DockerStatusView } from "../../../shared/api/api-views.js";
import { auditEngineName } from "../sandbox/container-engine/docker-view.js";
import type { AuditEntryInput, NOT_LOGGED_CAUSES } from "../../../shared/audit-entry.js";
import { AUDIT_LIMITS, BRIDGE_LIMITS, RUN_COST_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import { redactArgs } from "../core/secrets/redaction.js";
import type {
  BridgeCallAdmission,
  BridgeCallEvent,
  BridgeEvent,
  BridgeEventSink,
} from "../core/bridge/bridge-events.js";
import { maskSecrets } from "../core/secrets/secret-mask.js";
import { cutMiddleUtf8 } from "../util/text-cut.js";
import type { RunEvents } from "../core/engine/code-mode-engine.js";
import { runPythonContentBytes } from "../core/engine/run-python-content.js";
import { Emitter } from "../util/emitter.js";
import { sha256Hex } from "../util/sha256-hex.js";

/** Distinct tools run_finished names with their calls (calledTools); the rest are counted. */
export const CALLED_TOOLS_NAMED = 5;

/** Distinct tool names kept in the one entry that counts a run's calls not logged singly. */
export const NOT_LOGGED_TOOLS_SHOWN = 5;

/** What the log adds to each entry (`seq`, `ts`, `prev`, newline), counted toward auditBytesPerRun. */
export const AUDIT_ENTRY_HEADER_BYTES = 128;

type NotLoggedCause = (typeof NOT_LOGGED_CAUSES)[number];

/** Bytes an entry costs the run's allowance: its JSON and the log's own fields. */
function entryBytes(entry: AuditEntryInput): number {
  return Buffer.byteLength(JSON.stringify(entry)) + AUDIT_ENTRY_HEADER_BYTES;
}

/** The most bytes a text of at most `units` UTF-16 units takes as a JSON string. */
function jsonTextMaxBytes(units: number): number {
  // `\u001f`: six bytes for one unit, the most any unit takes (a pair's 4 bytes are 2 units).
  return 6 * units + 2;
}

/** The longest a number is written in JSON (`-1.7976931348623157e+308`, and one to spare). */
const NUMBER_MAX_BYTES = 24;

/**
 * The most a call's outcome adds to its entry as known when the call goes out: its reason and
 * its host detail (each cut to BRIDGE_LIMITS.refusalMaxChars by the bridge), its result's size,
 * its result's sha256 (hex, quoted) and its duration.
 */
export const CALL_OUTCOME_MAX_BYTES =
  2 * jsonTextMaxBytes(BRIDGE_LIMITS.refusalMaxChars) + 2 * NUMBER_MAX_BYTES + 66;

/** What one run in progress has cost the log so far. */
interface RunLedger {
  /** Bytes of the entries written. */
  bytes: number;
  /** Bytes set aside for the entries of calls that went out and have not ended. */
  reserved: number;
  /** Set once the run's allowance was found used up: its later calls are refused, counted. */
  over: boolean;
  /** What the run's calls' results would have cost a client calling the tools one by one. */
  oneByOneBytes: number;
  /** Of oneByOneBytes, the base64 of images and audio (counted apart by the receipt). */
  oneByOneMediaBytes: number;
  /** Calls per tool name, for the first CALLED_TOOLS_NAMED names called. */
  calledTools: Map<string, number>;
  notLogged: Map<NotLoggedCause, { count: number; tools: Set<string> }>;
  /** The engine named in the run's start: its end names the same one. */
  engine?: string;
}

export interface AuditRecorderOptions {
  auditBytesPerRun?: number;
  /**
   * Whether a tool's arguments stay out of the log (its hideArgs policy, by server and the
   * server's own tool name); none do unless said.
   */
  hidesArgs?: (server: string, tool: string) => boolean;
  /** Why the log cannot be written now (HostAudit.failure), or null; absent: never failing. */
  logFailure?: () => string | null;
}

/**
 * Turns what the bridge and the engine report into audit entries. Arguments of tools marked to
 * hide them never reach the log, and values of secret env entries are replaced wherever they
 * appear. What one run may write is bounded (RUN_COST_LIMITS.auditBytesPerRun): calls refused
 * past its budget are counted, not logged one by one. A call that goes out always has its
 * entry: the bridge asks for room first (reserve), the most its entry can take, set aside until
 * its event comes, so refusals cannot fill the allowance under it; a call with no room left is
 * refused before it goes out. Refused calls cost what their entry costs, from what is not set
 * aside. Once the allowance is used up the run's further calls are counted and the run is
 * stopped. The counts go in one entry each, written before the run's end.
 */
export class AuditRecorder implements BridgeEventSink, RunEvents {
  private readonly runs = new Map<string, RunLedger>();
  /**
   * The arguments of calls let out, as logged (masked and cut), from reserve to their event:
   * worked out once per call, not twice (cutting arguments near their cap takes several
   * stringifications).
   */
  private readonly admittedArgs = new WeakMap<object, string | null>();
  private readonly overCap = new Emitter<{ overCap: (runId: string) => void }>();
  private readonly auditBytesPerRun: number;
  private readonly hidesArgs: AuditRecorderOptions["hidesArgs"];
  private readonly logFailure: AuditRecorderOptions["logFailure"];

  constructor(
    private readonly append: (entry: AuditEntryInput) => void,
    private readonly secrets: () => readonly string[],
    options: AuditRecorderOptions = {},
  ) {
    this.auditBytesPerRun = options.auditBytesPerRun ?? RUN_COST_LIMITS.auditBytesPerRun;
    this.hidesArgs = options.hidesArgs;
    this.logFailure = options.logFailure;
  }

  unwritable(): string | null {
    return this.logFailure?.() ?? null;
  }

  /** Told of a run whose entries reached the per-run cap (at most once per run): stop it. */
  onOverCap(listener: (runId: string) => void): () => void {
    return this.overCap.on("overCap", listener);
  }

  emit(event: BridgeEvent): void {
    if (event.kind === "past_budget") {
      this.countNotLogged(this.ledger(event.runId), "call_budget", event.tool);
      return;
    }
    if (event.kind === "taint") {
      // Never dropped: it says a client may have seen private data. At most once per client.
      this.append({
        kind: "taint_set",
        client: event.client,
        server: event.server,
        tool: event.tool,
        ...(event.workspace === undefined ? {} : { workspace: event.workspace }),
      });
      return;
    }
    const ledger = this.ledger(event.runId);
    // Counted whether or not the call is logged: the receipt is of every result that came back.
    ledger.oneByOneBytes += event.oneByOneBytes ?? 0;
    ledger.oneByOneMediaBytes += event.oneByOneMediaBytes ?? 0;
    const name = event.tool.slice(0, BRIDGE_LIMITS.eventNameMaxChars);
    const called = ledger.calledTools.get(name);
    if (called !== undefined) ledger.calledTools.set(name, called + 1);
    else if (ledger.calledTools.size < CALLED_TOOLS_NAMED) {
      ledger.calledTools.set(name, 1);
    }
    if (event.reserved !== undefined) {
      // Let out with room set aside: logged, whatever the allowance says by now.
      ledger.reserved = Math.max(0, ledger.reserved - event.reserved);
      const entry = this.callEntry(event);
      if (event.args !== undefined) this.admittedArgs.delete(event.args);
      ledger.bytes += entryBytes(entry);
      this.append(entry);
      return;
    }
    if (ledger.over) {
      this.countNotLogged(ledger, "audit_limit", event.tool);
      return;
    }
    const entry = this.callEntry(event);
    if (!this.charge(event.runId, ledger, entry)) {
      this.countNotLogged(ledger, "audit_limit", event.tool);
      return;
    }
    this.append(entry);
  }

  /**
   * Room for the entry of a call about to go out: the entry as far as it is known now, and the
   * most its outcome can add (CALL_OUTCOME_MAX_BYTES). Null, and the run asked to stop, when
   * that does not fit beside what is written and what is set aside for calls still out.
   */
  reserve(call: BridgeCallAdmission): number | null {
    const ledger = this.ledger(call.runId);
    if (ledger.over) return null;
    const known = this.callEntry({ ...call, kind: "call", decision: "allowed", durationMs: 0 });
    const bytes = entryBytes(known) + CALL_OUTCOME_MAX_BYTES;
    if (!this.fits(ledger, bytes)) {
      this.stop(call.runId, ledger);
      return null;
    }
    if (call.args !== undefined) this.admittedArgs.set(call.args, known.args);
    ledger.reserved += bytes;
    return bytes;
  }

  runStarted(
    run: {
      runId: string;
      client: string;
      code: string;
      runtime?: SandboxRuntime;
      workspace?: string | undefined;
    },
    /** The engine as the host sees it at the start: the run goes there (auditEngineName). */
    engineView?: DockerStatusView,
  ): void {
    const engine = engineView === undefined ? undefined : auditEngineName(engineView);
    const entry: AuditEntryInput = {
      kind: "run_started",
      runId: run.runId,
      client: run.client,
      // Cut here, as the log would, so the start costs the allowance what is written. Its start
      // and its end are kept: the code chooses what fills the middle (see cutMiddleUtf8).
      code: cutMiddleUtf8(run.code, AUDIT_LIMITS.codeMaxBytes),
      codeBytes: Buffer.byteLength(run.code),
      codeHash: sha256Hex(run.code),
      ...(run.runtime === undefined ? {} : { runtime: run.runtime }),
      ...(engine === undefined ? {} : { engine }),
      ...(run.workspace === undefined ? {} : { workspace: run.workspace }),
    };
    // The start is always logged, and counts.
    const ledger = this.ledger(run.runId);
    ledger.bytes += entryBytes(entry);
    ledger.engine = engine;
    this.append(entry);
  }

  runFinished(run: {
    runId: string;
    client: string;
    result: RunResult;
    runtime?: SandboxRuntime;
  }): void {
    const ledger = this.runs.get(run.runId);
    this.runs.delete(run.runId);
    for (const [cause, counted] of ledger?.notLogged ?? []) {
      this.append({
        kind: "calls_not_logged",
        runId: run.runId,
        client: run.client,
        cause,
        count: counted.count,
        tools: [...counted.tools],
      });
    }
    const r = run.result;
    this.append({
      kind: "run_finished",
      runId: run.runId,
      client: run.client,
      durationMs: r.duration_ms,
      calls: r.calls,
      exitCode: r.exit_code,
      stopped: r.stopped,
      timedOut: r.timed_out,
      truncated: r.truncated,
      error: r.error,
      ...(r.exception === undefined
        ? {}
        : { errorType: r.exception.type, errorMessage: r.exception.message }),
      stdoutBytes: Buffer.byteLength(r.stdout),
      stderrBytes: Buffer.byteLength(r.stderr),
      ...(ledger === undefined || ledger.calledTools.size === 0
        ? {}
        : { calledTools: [...ledger.calledTools].map(([tool, calls]) => ({ tool, calls })) }),
      ...(r.images.length > 0
        ? { images: r.images.map(({ name, bytes, sha256 }) => ({ name, bytes, sha256 })) }
        : {}),
      ...(r.files === undefined || r.files.length === 0 ? {} : { files: r.files }),
      ...(r.workspace === undefined ? {} : { workspace: r.workspace }),
      ...(run.runtime === undefined ? {} : { runtime: run.runtime }),
      ...(ledger?.engine === undefined ? {} : { engine: ledger.engine }),
      // The receipt: what the client was sent, against what the calls' results would have cost.
      resultBytes: runPythonContentBytes(r),
      oneByOneBytes: ledger?.oneByOneBytes ?? 0,
      ...(ledger !== undefined && ledger.oneByOneMediaBytes > 0
        ? { oneByOneMediaBytes: ledger.oneByOneMediaBytes }
        : {}),
    });
  }

  /** The call entry of `event`, its arguments and detail masked (and none for a private tool). */
  private callEntry(
    event: Omit<BridgeCallEvent, "at" | "reserved">,
  ): Extract<AuditEntryInput, { kind: "call" }> {
    return {
      kind: "call",
      runId: event.runId,
      client: event.client,
      server: event.server ?? null,
      tool: event.tool,
      serverTool: event.serverTool ?? null,
      decision: event.decision,
      reason: event.reason ?? null,
      // A host fault's message can carry a server's stderr (a restart's last error): the log
      // keeps secrets out of it as it does of the arguments.
      detail: event.detail == null ? null : maskSecrets(event.detail, this.secrets()),
      argBytes: event.argBytes,
      args: event.args === undefined ? null : this.loggedArgs(event.args, this.hidden(event)),
      resultBytes: event.resultBytes ?? null,
      resultHash: event.resultHash ?? null,
      durationMs: event.durationMs,
      private: event.private,
    };
  }

  /** The arguments as logged: as reserve worked them out for a call let out, else now. */
  private loggedArgs(args: Record<string, unknown>, hidden: boolean): string | null {
    const admitted = this.admittedArgs.get(args);
    if (admitted !== undefined) return admitted;
    return redactArgs(args, { hidden, secrets: this.secrets() });
  }

  /** Whether the call's tool is marked to keep its arguments out of the log. */
  private hidden(event: { server?: string | undefined; serverTool?: string | undefined }): boolean {
    if (event.server === undefined || event.serverTool === undefined) return false;
    return this.hidesArgs?.(event.server, event.serverTool) ?? false;
  }

  private ledger(runId: string): RunLedger {
    let ledger = this.runs.get(runId);
    if (ledger === undefined) {
      ledger = {
        bytes: 0,
        reserved: 0,
        over: false,
        oneByOneBytes: 0,
        oneByOneMediaBytes: 0,
        calledTools: new Map(),
        notLogged: new Map(),
      };
      this.runs.set(runId, ledger);
    }
    return ledger;
  }

  /** Whether `bytes` more fit beside what the run wrote and what is set aside for calls out. */
  private fits(ledger: RunLedger, bytes: number): boolean {
    return ledger.bytes + ledger.reserved + bytes <= this.auditBytesPerRun;
  }

  /** The run's allowance is used up: its later calls are refused and counted, it is stopped. */
  private stop(runId: string, ledger: RunLedger): void {
    if (ledger.over) return;
    ledger.over = true;
    this.overCap.emit("overCap", runId);
  }

  /**
   * Adds the entry's size to the run's; false (and the run asked to stop) when it does not fit
   * beside what is set aside for the calls still out. The size is the entry's JSON as the log
   * writes it (its texts are already cut and masked), with a bound for the log's own fields.
   */
  private charge(runId: string, ledger: RunLedger, entry: AuditEntryInput): boolean {
    const bytes = entryBytes(entry);
    if (!this.fits(ledger, bytes)) {
      this.stop(runId, ledger);
      return false;
    }
    ledger.bytes += bytes;
    return true;
  }

  private countNotLogged(ledger: RunLedger, cause: NotLoggedCause, tool: string): void {
    let counted = ledger.notLogged.get(cause);
    if (counted === undefined) {
      counted = { count: 0, tools: new Set() };
      ledger.notLogged.set(cause, counted);
    }
    counted.count += 1;
    if (counted.tools.size < NOT_LOGGED_TOOLS_SHOWN) {
      counted.tools.add(tool.slice(0, BRIDGE_LIMITS.eventNameMaxChars));
    }
  }
}

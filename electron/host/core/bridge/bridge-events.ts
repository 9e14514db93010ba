/**
 * What the bridge reports to the audit log and the live feed. One `call` event per call the
 * code makes, whatever became of it; one `taint` event when a client becomes tainted.
 */

import type { AuditCallDecision } from "../../../../shared/audit-entry.js";

export interface BridgeCallEvent {
  kind: "call";
  runId: string;
  client: string;
  /** Absent when the name matched no tool in the catalog. */
  server?: string;
  /** The Python name the code called (cut if absurdly long). */
  tool: string;
  /** The server's own name for the tool; absent when the name matched no tool. */
  serverTool?: string;
  decision: AuditCallDecision;
  /** For refused and failed calls: the message the code received. */
  reason?: string;
  /**
   * For host faults only: the exception's own message, for the user's log. It never reaches
   * the code.
   */
  detail?: string;
  /** Size of the arguments as UTF-8 JSON; 0 when they could not be serialised. */
  argBytes: number;
  /**
   * The arguments as the code sent them (when they were an object), for the audit log,
   * which redacts private tools and secret values before anything is written.
   */
  args?: Record<string, unknown> | undefined;
  /** Size of the result string in UTF-8 bytes, when a result came back. */
  resultBytes?: number;
  /** sha256 hex of the result string, when a result came back. */
  resultHash?: string;
  /**
   * UTF-8 bytes of the result's content as JSON, when a result came back: what a client
   * calling the tool itself (one call at a time) would have received.
   */
  oneByOneBytes?: number;
  /** Of oneByOneBytes, the base64 data of images and audio: seen, not read as text. */
  oneByOneMediaBytes?: number;
  durationMs: number;
  /** Whether the catalog marks the tool private. */
  private: boolean;
  at: Date;
  /**
   * Bytes the sink set aside for this entry when the call was let out (BridgeEventSink.reserve):
   * the entry is written whatever the run's allowance says by now. Absent: refused before.
   */
  reserved?: number | undefined;
}

/** A call about to go out, as far as its audit entry goes before its outcome is known. */
export type BridgeCallAdmission = Pick<
  BridgeCallEvent,
  "runId" | "client" | "server" | "tool" | "serverTool" | "argBytes" | "args" | "private"
>;

export interface BridgeTaintEvent {
  kind: "taint";
  runId: string;
  client: string;
  server: string;
  /** The Python name of the private tool whose call tainted the client. */
  tool: string;
  serverTool: string;
  /** Set when no call but an opened workspace holding private data did it: its name. */
  workspace?: string;
  at: Date;
}

/**
 * A call refused because the run's budget was spent. It carries no arguments: such calls are
 * counted into one audit entry per run, not logged one by one.
 */
export interface BridgePastBudgetEvent {
  kind: "past_budget";
  runId: string;
  client: string;
  /** The Python name the code called (cut if absurdly long). */
  tool: string;
  at: Date;
}

export type BridgeEvent = BridgeCallEvent | BridgeTaintEvent | BridgePastBudgetEvent;

export interface BridgeEventSink {
  emit(event: BridgeEvent): void;
  /**
   * Asked just before a call goes out (after every check but "ask first"): sets room aside in
   * the log for the call's entry, whatever its outcome, and returns how many bytes (the call's
   * event carries them back as `reserved`); null when the run has no room left, and the call
   * is refused, never sent. Absent: the sink keeps no log, every call goes out.
   */
  reserve?(call: BridgeCallAdmission): number | null;
  /**
   * Why the log cannot take entries now (a write failed, as on a full disk), or null. Asked
   * before a call is let out and again after the user's answer: while it says why, no call
   * goes out, as no run starts. Absent: the sink keeps no log.
   */
  unwritable?(): string | null;
}

/** For `serve` and tests that do not look at events. */
export const discardBridgeEvents: BridgeEventSink = { emit: () => undefined };

// What the bridge is built with, what a run starts with, and what a run gets back.
import type { ApprovalGate, Elicit } from "./approval-gate.js";
import type { Catalog } from "../catalog/catalog-types.js";
import type { CallOutcome } from "../ports/run-types.js";
import type { BridgeEventSink } from "./bridge-events.js";
import type { TaintRegistry } from "./taint.js";
import type { ToolCaller } from "../ports/tool-caller.js";

export interface BridgeOptions {
  /** A getter, because the catalog is replaced live when servers or settings change. */
  catalog: () => Catalog;
  caller: ToolCaller;
  taint: TaintRegistry;
  events: BridgeEventSink;
  /**
   * The most calls one server may have in flight at once, across all runs; each burst starts
   * lower and grows to this while the server keeps up (server-slots.ts).
   */
  serverConcurrency?: number;
  callTimeoutMs?: number;
  /** Milliseconds since the epoch; injected so tests control durations and timestamps. */
  now?: () => number;
  /**
   * Secret env values (configSecrets of the running config), read at each call: every text
   * that goes back to the code has them replaced by "[secret]" first. Absent: none.
   */
  secrets?: () => readonly string[];
  /** "Ask first": asked last, after every other check. Absent: nothing asks. */
  approvals?: ApprovalGate | undefined;
}

export interface StartRunOptions {
  runId: string;
  /** Whose taint applies: one key per MCP client (`serve` uses a fixed one). */
  client: string;
  /** Defaults to BRIDGE_LIMITS.defaultMaxCallsPerRun; at most maxCallsPerRunCeiling. */
  maxCalls?: number;
  /** Aborted when the run ends: queued and in-flight calls are given up at once. */
  signal: AbortSignal;
  /**
   * Called once the code has gone on calling after its budget was spent for
   * REFUSALS_PAST_BUDGET refusals: the run should be stopped.
   */
  onBudgetSpent?: () => void;
  /** The run's code, shown to the user beside an "ask first" question. */
  code?: string | undefined;
  /** Asks the client too (MCP elicitation), when it supports it. */
  elicit?: Elicit | undefined;
  /**
   * Milliseconds left before the run's deadline (undefined until it starts counting): an "ask
   * first" question closes before it.
   */
  timeLeftMs?: (() => number | undefined) | undefined;
}

export interface RunCalls {
  readonly runId: string;
  readonly client: string;
  readonly maxCalls: number;
  /** Calls the code has made in this run, refused ones included. */
  readonly count: number;
  /** Calls refused because the budget was spent (summarised, not logged one by one). */
  readonly pastBudget: number;
  /** The calls waiting for the user's answer now ("ask first"), by the name the code called. */
  waitingForUser(): string[];
  call(pyName: string, args: unknown): Promise<CallOutcome>;
  /** Resolves once every call made so far has its outcome (and its event). */
  settled(): Promise<void>;
}

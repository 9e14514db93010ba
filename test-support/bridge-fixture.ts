// A hand-built catalog and a fake ToolCaller for the bridge's unit tests: the bridge is pure
// logic, so its tests need no server and no Docker. The end-to-end tests exercise the same
// rules on real servers.
import { Ajv } from "ajv";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog, CatalogTool } from "../electron/host/core/catalog/catalog-types.js";
import {
  Bridge,
  type BridgeOptions,
  type CallOutcome,
  type RunCalls,
} from "../electron/host/core/bridge/bridge.js";
import type {
  BridgeCallEvent,
  BridgeEvent,
  BridgeEventSink,
} from "../electron/host/core/bridge/bridge-events.js";
import { TaintRegistry } from "../electron/host/core/bridge/taint.js";
import type { ToolCaller } from "../electron/host/core/ports/tool-caller.js";

export const ajv = new Ajv({ strict: false });

export interface ToolSpec {
  pyName: string;
  server?: string;
  tool?: string;
  private?: boolean;
  schema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export const OPEN_SCHEMA = { type: "object" };

export function makeTool(spec: ToolSpec): CatalogTool {
  const inputSchema = spec.schema ?? OPEN_SCHEMA;
  const server = spec.server ?? "main";
  return {
    pyName: spec.pyName,
    namespace: server,
    method: spec.tool ?? spec.pyName,
    server,
    tool: spec.tool ?? spec.pyName,
    description: "",
    deprecated: false,
    private: spec.private ?? false,
    inputSchema,
    validate: ajv.compile(inputSchema),
    validateOutput: spec.outputSchema === undefined ? null : ajv.compile(spec.outputSchema),
    stub: "",
    summary: "",
    shownSchema: JSON.stringify(inputSchema),
  };
}

export function makeCatalog(specs: ToolSpec[]): Catalog {
  const tools = specs.map(makeTool);
  return {
    tools,
    byPyName: new Map(tools.map((t) => [t.pyName, t])),
    warnings: [],
    leftOut: [],
  };
}

export interface SeenCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs: number;
  stillGoes?: () => boolean;
}

export type Handler = (call: SeenCall) => Promise<CallToolResult> | CallToolResult;

/** Records every call that reached "the server" and answers through `handler`. */
export class FakeCaller implements ToolCaller {
  readonly calls: SeenCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly inFlightBy = new Map<string, number>();
  readonly maxInFlightBy = new Map<string, number>();
  constructor(public handler: Handler = echo) {}

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number; stillGoes?: () => boolean },
  ): Promise<CallToolResult> {
    const call = { server, tool, args, ...opts };
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const mine = (this.inFlightBy.get(server) ?? 0) + 1;
    this.inFlightBy.set(server, mine);
    this.maxInFlightBy.set(server, Math.max(this.maxInFlightBy.get(server) ?? 0, mine));
    try {
      return await this.handler(call);
    } finally {
      this.inFlight--;
      this.inFlightBy.set(server, (this.inFlightBy.get(server) ?? 1) - 1);
    }
  }
}

export function echo(call: SeenCall): CallToolResult {
  return { content: [{ type: "text", text: `${call.tool} ${JSON.stringify(call.args)}` }] };
}

export function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

/** Resolves when `signal` aborts: a server that answers only when told to stop. */
export function untilAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(new Error("aborted by signal")), {
      once: true,
    });
  });
}

export function never(): Promise<never> {
  return new Promise(() => undefined);
}

export interface Setup {
  bridge: Bridge;
  caller: FakeCaller;
  taint: TaintRegistry;
  events: BridgeEvent[];
  callEvents: () => BridgeCallEvent[];
  /** Swaps the catalog the bridge reads, as a rebuild does (new objects for every tool). */
  setTools: (specs: ToolSpec[]) => void;
  run: (opts?: {
    client?: string;
    maxCalls?: number;
    signal?: AbortSignal;
    onBudgetSpent?: () => void;
    code?: string;
    timeLeftMs?: () => number | undefined;
  }) => RunCalls;
}

export const DEFAULT_TOOLS: ToolSpec[] = [
  {
    pyName: "notes__search",
    server: "notes",
    tool: "search",
    private: true,
    schema: {
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
      additionalProperties: false,
    },
  },
  { pyName: "notes__read", server: "notes", tool: "read", private: true },
  { pyName: "vault__get", server: "vault", tool: "get", private: true },
  {
    pyName: "tracker__find_issue",
    server: "tracker",
    tool: "find-issue",
    schema: {
      type: "object",
      properties: { text: { type: "string" }, limit: { type: "integer" } },
      additionalProperties: false,
    },
  },
  { pyName: "tracker__echo", server: "tracker", tool: "echo" },
  { pyName: "web__fetch", server: "web", tool: "fetch" },
];

export function setup(
  opts: {
    tools?: ToolSpec[];
    handler?: Handler;
    /** The event sink's room in the log (BridgeEventSink.reserve); absent: it keeps no log. */
    reserve?: BridgeEventSink["reserve"];
    /** Why the log cannot be written now (BridgeEventSink.unwritable); absent: it can. */
    unwritable?: BridgeEventSink["unwritable"];
  } & Partial<
    Pick<BridgeOptions, "callTimeoutMs" | "serverConcurrency" | "approvals" | "now">
  > = {},
): Setup {
  let catalog = makeCatalog(opts.tools ?? DEFAULT_TOOLS);
  const caller = new FakeCaller(opts.handler);
  const taint = new TaintRegistry();
  const events: BridgeEvent[] = [];
  const bridge = new Bridge({
    catalog: () => catalog,
    caller,
    taint,
    events: {
      emit: (e) => events.push(e),
      ...(opts.reserve === undefined ? {} : { reserve: opts.reserve }),
      ...(opts.unwritable === undefined ? {} : { unwritable: opts.unwritable }),
    },
    callTimeoutMs: opts.callTimeoutMs,
    serverConcurrency: opts.serverConcurrency,
    approvals: opts.approvals,
    now: opts.now,
  });
  let runs = 0;
  return {
    bridge,
    caller,
    taint,
    events,
    callEvents: () => events.filter((e): e is BridgeCallEvent => e.kind === "call"),
    setTools: (specs) => {
      catalog = makeCatalog(specs);
    },
    run: (o = {}) =>
      bridge.startRun({
        runId: `run-${++runs}`,
        client: o.client ?? "client-a",
        maxCalls: o.maxCalls,
        signal: o.signal ?? new AbortController().signal,
        onBudgetSpent: o.onBudgetSpent,
        code: o.code,
        timeLeftMs: o.timeLeftMs,
      }),
  };
}

export function refused(outcome: CallOutcome): string {
  if (outcome.ok) throw new Error(`expected a refusal, got ${outcome.value}`);
  return outcome.message;
}

export function value(outcome: CallOutcome): string {
  if (!outcome.ok) throw new Error(`expected a value, got refusal: ${outcome.message}`);
  return outcome.value;
}

// ---------------------------------------------------------------------------------------

export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

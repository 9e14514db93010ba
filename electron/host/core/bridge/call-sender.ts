import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { Settled } from "./call-verdicts.js";
import { ServerSlots, type SlotDone } from "./server-slots.js";
import { ToolChangedError, type ToolCaller } from "../ports/tool-caller.js";

/** How a call that went out ended, before its result is judged. */
export type SendResult =
  | { kind: "result"; result: CallToolResult }
  | { kind: "timeout" }
  | { kind: "aborted"; error: unknown }
  | { kind: "fault"; error: unknown }
  /** Not sent: the tool changed while the call waited for a slot or a restart (stillGoes). */
  | { kind: "changed" };

/**
 * Sends the calls the bridge let through: each under its server's concurrency cap (slots
 * shared by every run), the run's signal and the call's own timeout, which starts when the
 * call goes out, not while it waits for a slot.
 */
export class CallSender {
  readonly #slots = new Map<string, ServerSlots>();

  constructor(
    private readonly caller: ToolCaller,
    private readonly options: {
      serverConcurrency: number;
      callTimeoutMs: number;
      now: () => number;
    },
  ) {}

  async send(
    signal: AbortSignal,
    tool: CatalogTool,
    args: Record<string, unknown>,
    stillGoes: () => boolean = () => true,
  ): Promise<SendResult> {
    const { callTimeoutMs, now } = this.options;
    let done: SlotDone;
    try {
      done = await this.#serverSlots(tool.server).acquire(signal, tool.tool);
    } catch (error) {
      return { kind: "aborted", error };
    }
    // The wait for a slot can be long, and the catalog may have changed under it.
    if (!stillGoes()) {
      done();
      return { kind: "changed" };
    }
    const sentAt = now();
    const release = (): void => done();

    // One controller carries both reasons to stop, so the caller sees a single signal. The
    // call ends with the first of its answer, the run's stop and its timeout: the stops settle
    // it themselves, at once, whether or not the caller heeds the signal, so they need no
    // listener of their own on it. It never rejects, so the caller's exception, whatever it is,
    // keeps its type name.
    const controller = new AbortController();
    let settle!: (settled: Settled<CallToolResult>) => void;
    const settledCall = new Promise<Settled<CallToolResult>>((resolve) => (settle = resolve));
    const stop = (reason: unknown): void => {
      controller.abort(reason);
      settle({ ok: false, error: reason });
    };
    let timedOut = false;
    const onRunAbort = (): void => stop(signal.reason);
    signal.addEventListener("abort", onRunAbort, { once: true });
    if (signal.aborted) stop(signal.reason);
    const timer = setTimeout(() => {
      timedOut = true;
      stop(new DOMException("The tool call timed out.", "TimeoutError"));
    }, callTimeoutMs);

    const pending = (async () =>
      this.caller.callTool(tool.server, tool.tool, args, {
        signal: controller.signal,
        timeoutMs: callTimeoutMs,
        stillGoes,
      }))();
    // The slot is held until the server has really finished with the request, so the cap
    // counts what the server is doing, not what the code still waits for. How long an answer
    // took tells the slots whether the server keeps up; a call that failed tells nothing.
    void pending.then(
      (value) => {
        done(now() - sentAt);
        settle({ ok: true, value });
      },
      (error: unknown) => {
        release();
        settle({ ok: false, error });
      },
    );

    try {
      const settled = await settledCall;
      if (settled.ok) return { kind: "result", result: settled.value };
      if (settled.error instanceof ToolChangedError) return { kind: "changed" };
      if (timedOut && !signal.aborted) return { kind: "timeout" };
      if (signal.aborted) return { kind: "aborted", error: settled.error };
      return { kind: "fault", error: settled.error };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onRunAbort);
      if (controller.signal.aborted) {
        // A caller that ignores its signal must not hold the slot for ever: give it one
        // more timeout's worth of time, then free the slot anyway.
        setTimeout(release, callTimeoutMs).unref();
      }
    }
  }

  #serverSlots(server: string): ServerSlots {
    let slots = this.#slots.get(server);
    if (slots === undefined) {
      slots = new ServerSlots({ ceiling: this.options.serverConcurrency });
      this.#slots.set(server, slots);
    }
    return slots;
  }
}

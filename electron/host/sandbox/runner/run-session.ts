import {
  ATTACH_LIMITS,
  BRIDGE_LIMITS,
  CATALOG_LIMITS,
  IMAGE_LIMITS,
  PROTOCOL_LIMITS,
  RUN_LIMITS,
} from "../../../../shared/limits.js";
import {
  SANDBOX_ENDED_ERROR,
  STOP_REASONS,
  type RunResult,
  type StopReason,
} from "../../../../shared/run-result.js";
import { errorTypeName } from "../../core/bridge/messages.js";
import { FileReceiver } from "./file-receiver.js";
import { ImageReceiver } from "./image-receiver.js";
import { LineFramer } from "../../util/line-framer.js";
import { OutputCapture, tracebackTail } from "./output-capture.js";
import {
  encodeHostMessage,
  parseRunnerLine,
  STAGED_TOOLS,
  type RunnerMessage,
  type StartMessage,
} from "./runner-messages.js";
import { toolsJson } from "../../core/ports/tools-json.js";
import type { CallOutcome, RunHooks, RunRequest } from "../../core/ports/run-types.js";
import type { SandboxContainer } from "../containers/sandbox-container.js";
import { MiB } from "../../util/units.js";
import { cutCodePoints } from "../../util/text-cut.js";
import { MESSAGES_PER_RUN, OUTPUT_STOP_BYTES, stopMessage } from "./stop-messages.js";

/** Last traceback lines kept in `error`. */
export const ERROR_TAIL_LINES = 20;

/**
 * Tool results the host may hold for a container whose runner does not read them (the code
 * can stop the runner's reader); past it the run ends as a protocol violation. Every call in
 * flight answered at once with a result at the bridge's cap (256 x 64 KiB, ~16 MiB, twice
 * that if JSON escapes every other character) fits with room to spare.
 */
export const RESULTS_UNREAD_MAX_BYTES = 64 * MiB;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

export function effectiveDeadlineSeconds(requested: number | undefined, ceiling: number): number {
  if (requested === undefined) return ceiling;
  return Math.max(RUN_LIMITS.minDeadlineSeconds, Math.min(requested, ceiling));
}

/**
 * Drives one run in one claimed container: sends the start line, answers calls through
 * the hooks, keeps bounded output, and ends the run on the deadline, on too much
 * output, on anything off-protocol, or on cancel. Every byte from the container is
 * treated as hostile; the host never trusts the runner to police itself.
 */
export function runInContainer(
  container: SandboxContainer,
  request: RunRequest,
  hooks: RunHooks,
  options: {
    deadlineCeilingSeconds: number;
    clock?: Clock;
    /** The run's workspace as the start line names it (the Sandbox put its files in the slot). */
    workspace?: StartMessage["workspace"];
  },
): Promise<RunResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const stdout = new OutputCapture(RUN_LIMITS.stdoutKeptBytes);
  const stderr = new OutputCapture(RUN_LIMITS.stderrKeptBytes);
  const seenIds = new Set<number>();
  const images = new ImageReceiver();
  const files = new FileReceiver();
  let calls = 0;
  let messages = 0;
  let pending = 0;
  let finished = false;

  return new Promise<RunResult>((resolve) => {
    const deadlineSeconds = effectiveDeadlineSeconds(
      request.deadlineSeconds,
      options.deadlineCeilingSeconds,
    );
    const deadlineMs = deadlineSeconds * 1000;
    // Node counts a timer in whole milliseconds of its loop clock, its start rounded down, so it
    // can fire up to a millisecond before performance.now(), which the duration is measured by,
    // says the time is up. Re-armed for the rest (Node waits at least 1 ms), the deadline never
    // stops a run that has had less than its time.
    const onTime = (): void => {
      const left = deadlineMs - (clock.now() - started);
      if (left > 0) timer = clock.setTimeout(onTime, left);
      else stop("deadline");
    };
    let timer = clock.setTimeout(onTime, deadlineMs);
    hooks.onDeadline?.(deadlineMs);
    const onAbort = (): void => stop("cancelled");
    hooks.signal?.addEventListener("abort", onAbort, { once: true });
    const onLimit = (): void => stop(limitReason(hooks.limit?.reason));
    hooks.limit?.addEventListener("abort", onLimit, { once: true });
    // Cancelled while its container was being claimed: the abort event has already fired.
    if (hooks.signal?.aborted) {
      stop("cancelled");
      return;
    }
    if (hooks.limit?.aborted) {
      onLimit();
      return;
    }

    function result(
      fields: Pick<RunResult, "error" | "exit_code" | "stopped" | "exception">,
      timedOut = false,
    ): RunResult {
      return {
        stdout: stdout.text,
        stderr: stderr.text,
        truncated: stdout.truncated || stderr.truncated,
        timed_out: timedOut,
        duration_ms: Math.round(clock.now() - started),
        calls,
        images: images.images.map(({ png: _png, ...info }) => info),
        ...fields,
      };
    }

    function settle(value: RunResult): void {
      if (finished) return;
      finished = true;
      timer.cancel();
      hooks.signal?.removeEventListener("abort", onAbort);
      hooks.limit?.removeEventListener("abort", onLimit);
      resolve(value);
    }

    function stop(reason: StopReason, detail?: string): void {
      if (finished) return;
      settle(
        result(
          { error: stopMessage(reason, deadlineSeconds, detail), exit_code: null, stopped: reason },
          reason === "deadline",
        ),
      );
    }

    function handle(message: RunnerMessage): void {
      // Every message costs a parse, an empty output chunk too: the count bounds the host's
      // work for one run whatever the sizes.
      if (++messages > MESSAGES_PER_RUN) {
        stop("message_limit");
        return;
      }
      switch (message.type) {
        case "output": {
          const capture = message.stream === "stdout" ? stdout : stderr;
          capture.append(message.data);
          if (stdout.total + stderr.total > OUTPUT_STOP_BYTES) stop("output_limit");
          return;
        }
        case "call": {
          if (seenIds.has(message.id)) {
            stop("protocol_violation", "a call id was used twice");
            return;
          }
          seenIds.add(message.id);
          calls++;
          if (++pending > PROTOCOL_LIMITS.maxPendingCalls) {
            stop("protocol_violation", "too many calls in flight");
            return;
          }
          void answer(message.id, message.tool, message.args);
          return;
        }
        case "image_start":
        case "image_data":
        case "image_end": {
          const step = images.take(message);
          if (!step.ok) {
            stop("protocol_violation", step.reason);
            return;
          }
          if (step.image) hooks.onImage?.(step.image);
          return;
        }
        case "file_start":
        case "file_data":
        case "file_end": {
          const step = files.take(message);
          if (!step.ok) {
            stop("protocol_violation", step.reason);
            return;
          }
          if (step.file) hooks.onFile?.(step.file);
          return;
        }
        case "done": {
          if (message.check === true) {
            endByCheck(message);
            return;
          }
          const error =
            message.error === null
              ? null
              : tracebackTail(message.error, ERROR_TAIL_LINES, RUN_LIMITS.errorMaxChars);
          const raised = error === null ? undefined : message.exception;
          settle(
            result({
              error,
              exit_code: error === null ? 0 : 1,
              stopped: null,
              ...(raised === undefined ? {} : { exception: raised }),
            }),
          );
          return;
        }
      }
    }

    /**
     * The runner's check ended the run before its code's first statement. Trusted only as the
     * run's first message: before it no code of the run's can have run, after it any could.
     */
    function endByCheck(message: Extract<RunnerMessage, { type: "done" }>): void {
      if (messages !== 1 || message.error === null) {
        stop("protocol_violation", "a check report came after the run's code had started");
        return;
      }
      settle(
        result({
          // Its first mistakes matter most: the head is kept (the runner cut it so already).
          error: cutCodePoints(message.error, RUN_LIMITS.errorMaxChars),
          exit_code: 1,
          stopped: "check",
          ...(message.exception === undefined ? {} : { exception: message.exception }),
        }),
      );
    }

    async function answer(id: number, tool: string, args: unknown): Promise<void> {
      let outcome: CallOutcome;
      try {
        outcome = hooks.onCall
          ? await hooks.onCall(tool, args)
          : {
              ok: false,
              message: `no tool named ${JSON.stringify(tool)}: no tools are configured`,
            };
      } catch (error) {
        // The bridge already turns faults into outcomes; this is the last guard that no
        // host detail reaches the code.
        outcome = { ok: false, message: `host error: ${errorTypeName(error)}` };
      }
      pending--;
      if (finished) return;
      container.write(encodeHostMessage({ type: "result", id, ...outcome }));
      // A runner that stops reading (the code can make it) would leave every later result in
      // the host's memory until the deadline: up to the budget of calls times the result cap.
      if (container.unreadBytes > RESULTS_UNREAD_MAX_BYTES) {
        stop(
          "protocol_violation",
          `the sandbox left more than ${RESULTS_UNREAD_MAX_BYTES} bytes of tool results unread`,
        );
      }
    }

    const lines = new LineFramer({
      maxLineBytes: PROTOCOL_LIMITS.lineMaxBytes,
      overLong: "stop",
      onLine: (line) => {
        // The run is over: the rest of the chunk is not even cut into lines.
        if (finished) return lines.stop();
        const parsed = parseRunnerLine(line.toString("utf8"));
        if (!parsed.ok) {
          stop("protocol_violation", parsed.reason);
          return;
        }
        handle(parsed.message);
      },
      onOverLong: () => {
        if (finished) return;
        stop(
          "protocol_violation",
          `a line from the sandbox exceeded ${PROTOCOL_LIMITS.lineMaxBytes} bytes`,
        );
      },
    });
    container.onStdout((chunk) => {
      if (!finished) lines.push(chunk);
    });

    container.ended.then(
      async () => {
        if (finished) return;
        const exit = await container.exit();
        if (finished) return;
        if (exit.oomKilled) {
          stop("memory");
          return;
        }
        settle(
          result({
            error: `${SANDBOX_ENDED_ERROR} (exit status ${exit.exitCode ?? "unknown"})`,
            exit_code: exit.exitCode,
            stopped: null,
          }),
        );
      },
      () => undefined,
    );

    container.sendStart(startLine(request, container.staged, options.workspace));
  });
}

const START_PREFIX = '{"type":"start","tools":';
const STAGED_START_PREFIX = `${START_PREFIX}${JSON.stringify(STAGED_TOOLS)}`;

/**
 * The run's start line. Its tools are the staged catalog's when their JSON is exactly what the
 * container got staged (`"tools":"staged"`), else the run's own: a catalog that changed while
 * the container waited must never reach a run.
 */
export function startLine(
  request: RunRequest,
  staged: string | null,
  workspace?: StartMessage["workspace"],
): string {
  const tools = toolsJson(request.tools ?? []);
  // `tools` right after `type`, so its place in the line is known without searching it.
  const line = encodeHostMessage({
    type: "start",
    tools: STAGED_TOOLS,
    code: request.code,
    stdin: request.stdin ?? "",
    down: (request.down ?? []).map((d) => ({
      prefix: d.prefix,
      server: d.server,
      reason: d.reason,
      ...(d.namespace === undefined ? {} : { ns: d.namespace }),
    })),
    held: (request.held ?? []).map((h) => ({
      name: h.name,
      message: h.message,
      ...(h.namespace === undefined || h.method === undefined
        ? {}
        : { ns: h.namespace, fn: h.method }),
    })),
    limits: runnerLimits(),
    ...(workspace === undefined ? {} : { workspace }),
  });
  if (tools === staged) return line;
  // The tools' text is serialized once per catalog (toolsJson): spliced in, not encoded again.
  return `${START_PREFIX}${tools}${line.slice(STAGED_START_PREFIX.length)}`;
}

/** The limits the start line gives the runner (the bench's plain `docker run` sends the same). */
export function runnerLimits() {
  return {
    args_max_bytes: BRIDGE_LIMITS.argsMaxBytes,
    output_chunk_chars: PROTOCOL_LIMITS.outputChunkChars,
    error_max_chars: RUN_LIMITS.errorMaxChars,
    images_per_run: IMAGE_LIMITS.perRun,
    image_max_bytes: IMAGE_LIMITS.maxBytes,
    images_total_bytes: IMAGE_LIMITS.totalBytesPerRun,
    image_chunk_chars: IMAGE_LIMITS.chunkChars,
    image_name_max_chars: IMAGE_LIMITS.nameMaxChars,
    image_max_side: IMAGE_LIMITS.maxSidePixels,
    search_default_results: CATALOG_LIMITS.searchDefaultResults,
    search_max_results: CATALOG_LIMITS.searchMaxResults,
    search_query_max_chars: CATALOG_LIMITS.searchQueryMaxChars,
    attach_per_run: ATTACH_LIMITS.perRun,
    attach_max_bytes: ATTACH_LIMITS.maxBytes,
    attach_total_bytes: ATTACH_LIMITS.totalBytesPerRun,
    attach_chunk_chars: ATTACH_LIMITS.chunkChars,
    attach_name_max_chars: ATTACH_LIMITS.nameMaxChars,
    attach_mime_max_chars: ATTACH_LIMITS.mimeMaxChars,
  };
}

/** The reason a limit signal was aborted with; a host bug that gives none reads as a cancel. */
function limitReason(reason: unknown): StopReason {
  return (STOP_REASONS as readonly unknown[]).includes(reason)
    ? (reason as StopReason)
    : "cancelled";
}

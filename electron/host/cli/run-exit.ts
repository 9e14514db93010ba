// `codemode run`'s exit status: one documented code per outcome, so a script can tell a run that
// finished from one whose code raised, one stopped at its deadline or another limit, and one
// that never ran. `python prog.py` exits 1 when the program raised and 2 on a usage error, and so
// does `codemode run`.
import { SANDBOX_ENDED_ERROR, type RunResult } from "../../../shared/run-result.js";

export const RUN_EXIT = {
  /** The code ran to its end. */
  finished: 0,
  /**
   * The code raised (a syntax error too), or the check before the run found mistakes in its
   * tool calls (nothing ran): the traceback's tail, or the mistakes, are in `error`.
   */
  raised: 1,
  /** Bad options or arguments, a FILE or --stdin file that cannot be read, an --images DIR that cannot be written. */
  usage: 2,
  /** Stopped at its deadline (--timeout, or the default). */
  deadline: 3,
  /**
   * Stopped for another reason (too much output, memory, the protocol broken, interrupted by
   * a signal), or the sandbox ended without finishing.
   */
  stopped: 4,
  /** Not run: Docker not reachable, the image not built, the runtime missing, the data directory refused. */
  unavailable: 5,
} as const;

/** The exit status of a run that happened. */
export function runExitCode(result: Pick<RunResult, "error" | "stopped">): number {
  if (result.stopped === "deadline") return RUN_EXIT.deadline;
  // Like a syntax error: the code is wrong as written, and none of it ran.
  if (result.stopped === "check") return RUN_EXIT.raised;
  if (result.stopped !== null) return RUN_EXIT.stopped;
  if (result.error === null) return RUN_EXIT.finished;
  // No stop reason but an error: the code raised, unless the sandbox ended under it before the
  // runner said the run was done (the code ended its own process, say).
  return result.error.startsWith(SANDBOX_ENDED_ERROR) ? RUN_EXIT.stopped : RUN_EXIT.raised;
}

/** The table of codes, as `codemode run --help` and the README give it. */
export const RUN_EXIT_HELP = `Exit status:
  ${RUN_EXIT.finished}  the code ran to its end
  ${RUN_EXIT.raised}  the code raised an exception (a syntax error too), or the check before the
     run found mistakes in its tool calls (nothing ran)
  ${RUN_EXIT.usage}  usage: a bad option or argument, a file that cannot be read or written
  ${RUN_EXIT.deadline}  the run was stopped at its deadline
  ${RUN_EXIT.stopped}  the run was stopped for another reason (output, memory, protocol,
     interrupted) or the sandbox ended without finishing
  ${RUN_EXIT.unavailable}  the run could not start: Docker, the sandbox image, the runtime or the
     data directory (the message says which)`;

// A finished run's result for unit tests: what a run that printed nothing and made no call
// returns, with the fields a test cares about given.
import type { RunResult } from "../shared/run-result.js";

export function runResult(fields: Partial<RunResult> = {}): RunResult {
  return {
    stdout: "",
    stderr: "",
    error: null,
    exit_code: 0,
    truncated: false,
    timed_out: false,
    stopped: null,
    duration_ms: 1,
    calls: 0,
    images: [],
    ...fields,
  };
}

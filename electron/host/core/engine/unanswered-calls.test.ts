import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../../shared/run-result.js";
import { runResult } from "../../../../test-support/run-result.js";
import { withUnanswered } from "./unanswered-calls.js";

const result = (fields: Partial<RunResult>): RunResult => runResult({ calls: 1, ...fields });

describe("a run that ended while calls waited for the user", () => {
  it("says which calls waited and that they were not answered, after why it stopped", () => {
    const stopped = result({
      error: "the run was stopped: too much output",
      stopped: "output_limit",
    });
    expect(withUnanswered(stopped, ["toy__echo"]).error).toBe(
      "the run was stopped: too much output\n" +
        "a call to toy__echo waited for the user's answer and was not answered when the run " +
        "ended, so it was not sent",
    );
    expect(withUnanswered(stopped, ["a", "b", "a", "c", "d"]).error).toContain(
      "5 calls to a, b, c and 1 more waited for the user's answer and were not answered",
    );
  });

  it("leaves a run with no waiting call, or one that finished, as it is", () => {
    const stopped = result({ error: "stopped", stopped: "deadline" });
    expect(withUnanswered(stopped, [])).toBe(stopped);
    const finished = result({});
    expect(withUnanswered(finished, ["toy__echo"])).toBe(finished);
  });
});

import { describe, expect, it } from "vitest";
import { SANDBOX_ENDED_ERROR, STOP_REASONS } from "../../../shared/run-result.js";
import { RUN_EXIT, RUN_EXIT_HELP, runExitCode } from "./run-exit.js";

describe("codemode run's exit status", () => {
  it("is pinned: scripts rely on each code", () => {
    expect(RUN_EXIT).toEqual({
      finished: 0,
      raised: 1,
      usage: 2,
      deadline: 3,
      stopped: 4,
      unavailable: 5,
    });
  });

  it("tells a finished run, a raise, the check, the deadline, another stop and a sandbox that ended apart", () => {
    expect(runExitCode({ error: null, stopped: null })).toBe(0);
    expect(runExitCode({ error: "ValueError: boom", stopped: null })).toBe(1);
    expect(runExitCode({ error: "stopped at its deadline", stopped: "deadline" })).toBe(3);
    for (const reason of STOP_REASONS.filter((r) => r !== "deadline" && r !== "check")) {
      expect(runExitCode({ error: "stopped", stopped: reason }), reason).toBe(4);
    }
    // Mistakes the check found before the run: like a syntax error, the code is wrong as written.
    expect(runExitCode({ error: "ToolCheckError: ...", stopped: "check" })).toBe(1);
    expect(runExitCode({ error: `${SANDBOX_ENDED_ERROR} (exit status 3)`, stopped: null })).toBe(4);
  });

  it("the help gives every code", () => {
    for (const code of Object.values(RUN_EXIT)) {
      expect(RUN_EXIT_HELP).toMatch(new RegExp(`^ {2}${code} {2}\\S`, "m"));
    }
  });
});

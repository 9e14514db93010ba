// `codemode run` as a script runs it: the real CLI process on real Docker, one run per outcome,
// each telling its outcome by its exit status (RUN_EXIT), the result JSON on stdout whenever
// the run happened.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_EXIT } from "../electron/host/cli/run-exit.js";
import { SANDBOX_ENDED_ERROR, type RunResult } from "../shared/run-result.js";
import { assertHostBuilt, makeHome, runCli } from "../test-support/daemon.js";
import { dockerOrSkip, installContainers } from "../test-support/docker.js";
import { removeTempDirs } from "../test-support/temp-dir.js";

const fx = await dockerOrSkip();

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("codemode run's exit status, from the real CLI", () => {
  const home = makeHome("codemode-run-exit-");

  beforeAll(() => assertHostBuilt());
  afterAll(async () => {
    // Every run removed its own container.
    expect(await installContainers(fx!.docker, home)).toEqual([]);
    removeTempDirs();
  });

  /** `codemode run [args] FILE` on a file holding `code`: its exit status and its result. */
  async function runFile(code: string, args: string[] = []) {
    const file = path.join(home, `prog-${Math.random().toString(36).slice(2)}.py`);
    writeFileSync(file, code);
    const out = await runCli(home, ["run", ...args, file], { timeoutMs: 120_000 });
    expect(out.signal).toBeNull();
    return {
      code: out.code,
      stderr: out.stderr,
      result: out.stdout === "" ? null : (JSON.parse(out.stdout) as RunResult),
    };
  }

  it("0: the code ran to its end", async () => {
    const { code, result } = await runFile("print('done')");
    expect(code).toBe(RUN_EXIT.finished);
    expect(result).toMatchObject({ stdout: "done\n", error: null });
  });

  it("1: the code raised (a syntax error too)", async () => {
    const raised = await runFile("print('before')\nraise ValueError('boom')");
    expect(raised.code).toBe(RUN_EXIT.raised);
    expect(raised.result?.error).toContain("ValueError: boom");
    const syntax = await runFile("def (:");
    expect(syntax.code).toBe(RUN_EXIT.raised);
    expect(syntax.result?.error).toContain("SyntaxError");
  });

  it("2: usage errors (an unknown option, a file that cannot be read)", async () => {
    const option = await runCli(home, ["run", "--frobnicate", "x.py"]);
    expect(option.code).toBe(RUN_EXIT.usage);
    expect(option.stderr).toMatch(/^codemode run: .*frobnicate.*\n$/);
    const missing = await runCli(home, ["run", path.join(home, "missing.py")]);
    expect(missing.code).toBe(RUN_EXIT.usage);
    expect(missing.stderr).toContain("cannot read");
  });

  it("3: stopped at its deadline", async () => {
    const { code, result } = await runFile("while True:\n    pass", ["--timeout", "1"]);
    expect(code).toBe(RUN_EXIT.deadline);
    expect(result).toMatchObject({ stopped: "deadline", timed_out: true });
  });

  it("4: stopped for another limit, or the sandbox ended under the code", async () => {
    const flood = await runFile("while True:\n    print('x' * 4096)");
    expect(flood.code).toBe(RUN_EXIT.stopped);
    expect(flood.result?.stopped).toBe("output_limit");
    const ended = await runFile("import os\nos._exit(7)");
    expect(ended.code).toBe(RUN_EXIT.stopped);
    expect(ended.result?.error).toContain(SANDBOX_ENDED_ERROR);
  });

  it("5: no Docker engine to run it on", async () => {
    const file = path.join(home, "never.py");
    writeFileSync(file, "print(1)");
    const out = await runCli(home, ["run", file], {
      env: { DOCKER_HOST: `unix://${path.join(home, "no-docker.sock")}` },
    });
    expect(out.code).toBe(RUN_EXIT.unavailable);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
  });
});

// Against a real `codemode daemon`, real Docker and real MCP clients.
// The code in the sandbox shares the runner's process, so it can write any line to the
// protocol pipe. Each test here writes one hostile line of one message type (done, output,
// call) while a second client keeps asking the daemon for tools/list: the daemon must stay
// responsive (every tools/list under 200 ms), the hostile run must end by its deadline, and a
// name that could forge what a person reads must never reach the audit log or the terminal.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../shared/run-result.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { isUnsafeForTerminal } from "../electron/host/util/terminal-text.js";
import type { McpSession } from "../test-support/mcp-session.js";

const fx = await dockerOrSkip();

/** What a second client typically waits for tools/list while a hostile run is in progress. */
const RESPONSIVE_MS = 200;
/**
 * The slowest single answer allowed. The engine and its 2 cores are shared with other test
 * runs, so one answer may wait for the scheduler; the attack this catches stalled every
 * answer for 20-50 s (a single-threaded host stuck in a regex), far above this.
 */
const STALL_MS = 5_000;
const DEADLINE_S = 6;
/** Time on top of the deadline for the container to stop and the result to travel back. */
const DEADLINE_SLACK_MS = 3_000;

/**
 * Python that writes `lineExpr` (a bytes expression) to every descriptor the runner could have
 * kept for its protocol pipe, then keeps the run going until its deadline.
 */
function hostileCode(lineExpr: string): string {
  return [
    "import json, os, time",
    "time.sleep(0.5)",
    `line = ${lineExpr}`,
    "for fd in range(3, 64):",
    "    try:",
    "        os.write(fd, line)",
    "    except OSError:",
    "        pass",
    "while True:",
    "    pass",
  ].join("\n");
}

const json = (message: string): string => `json.dumps(${message}).encode() + b"\\n"`;

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("hostile text from the sandbox costs the host linear time", () => {
  const home = makeHome();
  let hostile: McpSession;
  let observer: McpSession;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
    await startDaemon(home);
    hostile = await connectShim(home, { name: "hostile", version: "1" });
    observer = await connectShim(home, { name: "observer", version: "1" });
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  /**
   * Runs `code` as the hostile client while the observer calls tools/list back to back; the
   * run's result, and the median and slowest tools/list answers seen while it was in progress.
   */
  async function runWhileObserving(
    code: string,
  ): Promise<{ result: RunResult; slowestMs: number; medianMs: number }> {
    let running = true;
    const answers: number[] = [];
    const observing = (async () => {
      while (running) {
        const start = performance.now();
        await observer.client.listTools();
        answers.push(performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    let result: RunResult;
    try {
      result = await hostile.run(code, { timeout_s: DEADLINE_S });
    } finally {
      running = false;
      // The answer in flight when the run ended counts too: a stalled host delays it.
      await observing;
    }
    const sorted = answers.sort((a, b) => a - b);
    return {
      result,
      slowestMs: sorted.at(-1) ?? 0,
      medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
    };
  }

  function expectResponsive(outcome: {
    result: RunResult;
    slowestMs: number;
    medianMs: number;
  }): void {
    expect(outcome.medianMs).toBeLessThan(RESPONSIVE_MS);
    expect(outcome.slowestMs).toBeLessThan(STALL_MS);
    expect(outcome.result.duration_ms).toBeLessThan(DEADLINE_S * 1000 + DEADLINE_SLACK_MS);
  }

  it("done: an error of 130,000 spaces and one character is cut and read in linear time", async () => {
    const outcome = await runWhileObserving(
      hostileCode(json(`{"type": "done", "error": " " * 130000 + "x"}`)),
    );
    expectResponsive(outcome);
    expect(outcome.result.stopped).toBeNull();
    expect(outcome.result.exit_code).toBe(1);
    expect(outcome.result.error?.endsWith(" x")).toBe(true);
  });

  it("output: a chunk over its cap is a protocol violation, read in linear time", async () => {
    const outcome = await runWhileObserving(
      hostileCode(json(`{"type": "output", "stream": "stdout", "data": " " * 120000 + "x"}`)),
    );
    expectResponsive(outcome);
    expect(outcome.result.stopped).toBe("protocol_violation");
    expect(outcome.result.error).toContain("an output chunk was over its size");
  });

  it("call: a tool name that is not an identifier (CR/LF, OSC 52, a formula) ends the run and never reaches the audit log", async () => {
    for (const tool of [
      "toy__add\r\n2026-01-01T00:00:00.000Z #1 call                toy__add allowed",
      "\u001b]52;c;aGVsbG8=\u0007toy__add",
      '=HYPERLINK("http://127.0.0.1/")',
      "toy__add\u202e",
      " ".repeat(100_000) + "x",
    ]) {
      const outcome = await runWhileObserving(
        hostileCode(json(`{"type": "call", "id": 1, "tool": ${JSON.stringify(tool)}, "args": {}}`)),
      );
      expectResponsive(outcome);
      expect(outcome.result.stopped, JSON.stringify(tool.slice(0, 40))).toBe("protocol_violation");
      expect(outcome.result.calls).toBe(0);
    }
    const calls = auditEntries(home, "call", "hostile");
    expect(calls).toEqual([]);
  });

  it("call: odd but well-formed calls are just calls, each refused by the bridge", async () => {
    const outcome = await runWhileObserving(
      hostileCode(
        [
          "b''.join([",
          `  ${json(`{"type": "call", "id": 1, "tool": "x" * 1024, "args": {}}`)},`,
          `  ${json(`{"type": "call", "id": 2, "tool": "toy__add", "args": {"a": " " * 100000 + "x"}}`)},`,
          `  ${json(`{"type": "call", "id": 3, "tool": "toy__ad", "args": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`)},`,
          "])",
        ].join("\n"),
      ),
    );
    expectResponsive(outcome);
    expect(outcome.result.calls).toBe(3);
    // The runner never made these calls, so their results make it stop as the host's bug.
    expect(outcome.result.error).toContain("the sandbox ended without finishing the run");
    const refused = auditEntries(home, "call", "hostile");
    expect(refused.map((e) => [e.tool.length, e.decision])).toEqual([
      [200, "refused"], // names in events are cut to BRIDGE_LIMITS.eventNameMaxChars
      [8, "refused"],
      [7, "refused"],
    ]);
  });

  it("output: a run that writes chunks of whitespace up to their cap ends at its deadline", async () => {
    const outcome = await runWhileObserving(
      hostileCode(json(`{"type": "output", "stream": "stderr", "data": " " * 4095 + "x"}`)),
    );
    expectResponsive(outcome);
    expect(outcome.result.stopped).toBe("deadline");
    expect(outcome.result.duration_ms).toBeGreaterThanOrEqual(DEADLINE_S * 1000 - 100);
  });

  it("codemode audit tail prints every entry on one line, with nothing a terminal acts on, whatever a client calls itself", async () => {
    // The client's self-chosen name is free text that lands in every entry of its runs.
    const forger = await connectShim(home, {
      name: '=HYPERLINK("http://127.0.0.1/")\r\n2026-01-01T00:00:00.000Z #1 call toy__add allowed\u001b]52;c;aGVsbG8=\u0007\u202e',
      version: "1\u009b31m",
    });
    expect((await forger.run("print(1)")).stdout).toBe("1\n");
    await forger.close();
    const tail = await runCli(home, ["audit", "tail", "-n", "200", "--no-follow"]);
    expect(tail.code).toBe(0);
    for (const line of tail.stdout.split("\n").filter((l) => l !== "")) {
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+ #\d+ /);
    }
    expect(tail.stdout).toContain(
      '=HYPERLINK("http://127.0.0.1/")\\u000d\\u000a2026-01-01T00:00:00.000Z #1 call',
    );
    expect(tail.stdout).toContain("\\u001b]52;c;aGVsbG8=\\u0007\\u202e");
    const acted = [...tail.stdout].filter(
      (ch) => ch !== "\n" && isUnsafeForTerminal(ch.charCodeAt(0)),
    );
    expect(acted).toEqual([]);
  });

  it("codemode audit export --format csv neutralises a cell that would run as a formula", async () => {
    const csv = await runCli(home, ["audit", "export", "--format", "csv"]);
    expect(csv.code).toBe(0);
    // The client's name, in the client column of each of its entries, defused by a quote.
    expect(csv.stdout).toContain(',"\'=HYPERLINK(""http://127.0.0.1/"")');
    expect(csv.stdout).not.toContain(',"=HYPERLINK');
    expect(csv.stdout).not.toContain(",=HYPERLINK");
  });
});

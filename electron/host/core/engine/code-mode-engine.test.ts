import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../../shared/run-result.js";
import type { ApprovalOutcome } from "../bridge/approval-gate.js";
import { TaintRegistry } from "../bridge/taint.js";
import type { RunFileData, RunHooks, RunRequest } from "../ports/run-types.js";
import { runResult } from "../../../../test-support/run-result.js";
import { CodeModeEngine, type EngineServers } from "./code-mode-engine.js";

const servers: EngineServers = {
  config: { servers: new Map() },
  servers: new Map(),
  serverTools: () => [],
  on: () => () => undefined,
  callTool: () => Promise.reject(new Error("no tools here")),
};

const finished = (extra: Partial<RunResult> = {}): RunResult =>
  runResult({ stdout: "done\n", ...extra });

const file = (name: string): RunFileData => ({
  name,
  bytes: 2,
  sha256: "0".repeat(64),
  mimeType: "text/plain",
  data: Buffer.from("hi"),
});

describe("CodeModeEngine: a run's end", () => {
  it("a file that cannot be kept is left out, saying why; the run is still recorded as finished", async () => {
    const finishedRuns: { runId: string; result: RunResult }[] = [];
    const engine = new CodeModeEngine({
      servers,
      sandbox: {
        deadlineSeconds: 50,
        run: (_request: RunRequest, hooks: RunHooks) => {
          hooks.onFile?.(file("full.txt"));
          hooks.onFile?.(file("fine.txt"));
          return Promise.resolve(finished());
        },
      },
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
      runEvents: { runFinished: (run) => finishedRuns.push(run) },
      prefixWithServer: true,
      attachments: {
        keep: (_owner, kept) =>
          kept.name === "full.txt"
            ? Promise.reject(
                Object.assign(new Error("ENOSPC: no space left, open '/home/u/x'"), {
                  code: "ENOSPC",
                }),
              )
            : Promise.resolve({ ...kept, uri: `codemode://files/${kept.name}` }),
      },
    });
    const result = await engine.run({ code: "attach('x')" }, { client: "c" });
    expect(result.stdout).toBe("done\n");
    expect(result.files?.map((f) => f.name)).toEqual(["fine.txt"]);
    expect(result.stderr).toBe("attach: full.txt was not kept (ENOSPC), so it is not attached.\n");
    expect(finishedRuns.map((run) => run.result)).toEqual([result]);
    // The run is no longer in progress: nothing is left to stop.
    expect(engine.stopRun(finishedRuns[0]!.runId, "cancelled")).toBe(false);
  });

  it("a call waiting for the user when the run ends never goes out, however long its files take", async () => {
    const sent: string[] = [];
    const questions: ((outcome: ApprovalOutcome) => void)[] = [];
    let keepDone!: () => void;
    const keeping = new Promise<void>((resolve) => (keepDone = resolve));
    let keepStarted!: () => void;
    const keepBegan = new Promise<void>((resolve) => (keepStarted = resolve));
    const engine = new CodeModeEngine({
      servers: {
        ...servers,
        serverTools: () => [
          {
            server: "mail",
            tools: [{ name: "send", inputSchema: { type: "object" } }],
            allow: null,
            private: false,
          },
        ],
        callTool: (_server, tool) => {
          sent.push(tool);
          return Promise.resolve({ content: [] });
        },
      },
      sandbox: {
        deadlineSeconds: 50,
        run: (_request: RunRequest, hooks: RunHooks) => {
          // The code asked, then ended (stopped) without waiting for the answer.
          void hooks.onCall?.("mail__send", {});
          hooks.onFile?.(file("report.txt"));
          return Promise.resolve(finished({ stopped: "cancelled" }));
        },
      },
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
      prefixWithServer: true,
      tolerateCatalogErrors: true,
      approvals: {
        asksFirst: () => true,
        ask: (request) =>
          new Promise<ApprovalOutcome>((resolve) => {
            questions.push(resolve);
            request.signal.addEventListener("abort", () =>
              resolve({ answer: "cancelled", by: null }),
            );
          }),
      },
      attachments: {
        keep: async (_owner, kept) => {
          keepStarted();
          await keeping;
          return { ...kept, uri: `codemode://files/${kept.name}` };
        },
      },
    });
    const running = engine.run({ code: "await mail.send()" }, { client: "c" });
    await keepBegan;
    expect(questions).toHaveLength(1);
    // The user allows the call while the run's file is being kept.
    for (const answer of questions) answer({ answer: "allow_once", by: "app" });
    keepDone();
    await running;
    expect(sent).toEqual([]);
  });

  it("the run's end names the runtime of the container it ran in, not the setting's", async () => {
    const runtimes: string[] = [];
    const engine = new CodeModeEngine({
      servers,
      sandbox: {
        deadlineSeconds: 50,
        // The setting moved to runsc while this run waited; its container was made with runc.
        runtime: "runsc",
        run: (_request: RunRequest, hooks: RunHooks) => {
          hooks.onContainer?.({ runtime: "runc" });
          return Promise.resolve(finished());
        },
      },
      taint: new TaintRegistry(),
      events: { emit: () => undefined },
      runEvents: {
        runStarted: (run) => runtimes.push(`started ${run.runtime}`),
        runFinished: (run) => runtimes.push(`finished ${run.runtime}`),
      },
      prefixWithServer: true,
    });
    await engine.run({ code: "print(1)" }, { client: "c" });
    expect(runtimes).toEqual(["started runsc", "finished runc"]);
  });
});

// Everything the model can read says that the user reviews held tools, the private-data rule
// and "ask first" in Code Mode, and never how: no command, option, file or way to approve,
// allow or reset anything. A model in a client that runs commands (Claude Code does) ran the
// command a held tool's error named, and so accepted a change the user had rejected.
// Scanned: the run_python description (stubs, private tools, held tools, servers down, a
// raised deadline) and input schema, SKILL.md, the runner's whole source (the image ships it
// readable), the shim's "not running" help, and every refusal the bridge sends the code:
// held, private, ask first (denied, unanswered, cut short by the run's deadline, the run ended
// while it waited), budget, unknown tool, arguments, schema.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_LIMITS } from "../../../../shared/limits.js";
import type { RunResult } from "../../../../shared/run-result.js";
import {
  DEFAULT_TOOLS,
  FakeCaller,
  makeCatalog,
  refused,
} from "../../../../test-support/bridge-fixture.js";
import type { ApprovalGate, ApprovalOutcome } from "../bridge/approval-gate.js";
import { Bridge } from "../bridge/bridge.js";
import { withUnanswered } from "../engine/unanswered-calls.js";
import { TaintRegistry } from "../bridge/taint.js";
import { readSkillGuide } from "../../ingress/mcp/skill-guide.js";
import { runPythonInputJsonSchema } from "../engine/run-python-schema.js";
import { sandboxImageDir } from "../../util/paths.js";
import { NOT_RUNNING_HELP } from "../../shim/shim.js";
import { buildCatalog, heldToolMessage } from "./catalog-builder.js";
import type { DiscoveredTool } from "./catalog-types.js";
import { describeRunPython } from "./run-python-description.js";

/** What must not appear, each with a pattern of its own (all linear, over our own text). */
const FORBIDDEN: { what: string; pattern: RegExp; inRunner: boolean }[] = [
  { what: "a Code Mode command", pattern: /\bcodemode[ \t]+[a-z]+/gi, inRunner: true },
  // The runner's own argv flag (--preload, between host and runner) is no way to approve.
  { what: "a command-line option", pattern: /(?:^|[\s`'"(=])--[a-z][a-z-]*/gm, inRunner: false },
  {
    what: "a file that keeps what the user decided",
    pattern: /\b(?:pins|servers|settings)\.json\b|\.reviews\b/gi,
    inRunner: true,
  },
  {
    what: "a way to approve, allow or reset something",
    pattern:
      /\b(?:accept|allow|approve|reset|unlock|override|clear|lift|undo)\w*\s+(?:it|them|this|that|the\s+(?:tool|tools|change|changes|rule|mode|call|server|app|definition))\b/gi,
    inRunner: true,
  },
  {
    what: "a restart as a way out",
    pattern: /\b(?:or|until|unless|once)\b[^.\n]{0,40}\brestart/gi,
    inRunner: true,
  },
  {
    what: "an instruction to run something",
    // A command in backquotes (a Python call, with its parentheses, is not one).
    pattern: /\b(?:run|execute|type)\s+`[^`(\n]{0,80}`/gi,
    inRunner: true,
  },
];

/** Commands that decide nothing of the user's: they start the app, or build its image. */
const HARMLESS_COMMANDS = new Set(["codemode daemon", "codemode image"]);

function findings(text: string, inRunner = false): string[] {
  const found: string[] = [];
  for (const { what, pattern, inRunner: applies } of FORBIDDEN) {
    if (inRunner && !applies) continue;
    for (const match of text.matchAll(pattern)) {
      const said = match[0].toLowerCase();
      if ([...HARMLESS_COMMANDS].some((command) => said.includes(command))) continue;
      found.push(`${what}: ${JSON.stringify(match[0])}`);
    }
  }
  return found;
}

function tools(names: string[]): DiscoveredTool[] {
  return names.map((name) => ({
    name,
    description: `Does ${name}.`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
  }));
}

/** The description with everything it can say: private tools, held tools, servers down. */
function descriptions(): string[] {
  const catalog = buildCatalog(
    [
      { server: "notes", tools: tools(["search", "read"]), allow: null, private: true },
      {
        server: "web",
        tools: tools(["fetch", "post"]),
        allow: null,
        private: false,
        held: new Set(["post"]),
      },
    ],
    { prefixWithServer: true },
  );
  const many = buildCatalog(
    [
      {
        server: "s",
        tools: tools(Array.from({ length: 40 }, (_, i) => `t${i}`)),
        allow: null,
        private: ["t0"],
      },
    ],
    { prefixWithServer: false },
  );
  const down = [
    {
      server: "mail",
      prefix: "mail__",
      namespace: "mail",
      reason: "not started",
      firstStart: false,
    },
  ];
  return [
    describeRunPython(catalog, 100_000),
    describeRunPython(catalog, 100_000, {
      down,
      deadlineSeconds: RUN_LIMITS.maxDeadlineSeconds,
      maxCallsPerRun: 500,
    }),
    describeRunPython(many, 3_000, { down }),
    describeRunPython(buildCatalog([], { prefixWithServer: false }), 3_000, { down }),
  ];
}

/** A gate that asks before web.fetch and answers each question in turn. */
function answering(answers: ApprovalOutcome[]): ApprovalGate {
  return {
    asksFirst: (server, tool) => server === "web" && tool === "fetch",
    ask: () => Promise.resolve(answers.shift() ?? { answer: "deny", by: null }),
  };
}

/** Every kind of refusal the bridge sends the code, as the code receives it. */
async function refusals(): Promise<string[]> {
  const catalog = {
    ...makeCatalog(DEFAULT_TOOLS),
    held: new Map([["web__post", heldToolMessage("web__post", "web", "post")]]),
  };
  const bridge = new Bridge({
    catalog: () => catalog,
    caller: new FakeCaller(),
    taint: new TaintRegistry(),
    events: { emit: () => undefined },
    approvals: answering([
      { answer: "deny", by: null },
      { answer: "timeout", by: null, waitedMs: 60_000 },
      // Cut short by the run's deadline, after a wait and with no time to ask at all.
      { answer: "timeout", by: null, waitedMs: 8_000, runDeadline: true },
      { answer: "timeout", by: null, waitedMs: 0, runDeadline: true },
    ]),
  });
  let runs = 0;
  const run = (client: string, maxCalls?: number) =>
    bridge.startRun({
      runId: `run-${++runs}`,
      client,
      maxCalls,
      signal: new AbortController().signal,
    });
  const a = run("client-a");
  const texts = [
    refused(await a.call("web__post", {})),
    refused(await a.call("web__fetch", { url: "x" })),
    refused(await a.call("web__fetch", { url: "y" })),
    refused(await a.call("web__fetch", { url: "z" })),
    refused(await a.call("web__fetch", { url: "w" })),
    refused(await a.call("web__fecth", {})),
    refused(await a.call("web__fetch", [1])),
    refused(await a.call("web__fetch", { big: "x".repeat(20_000) })),
    refused(await a.call("notes__search", { query: 1 })),
  ];
  // After a private call, a non-private one is refused by the private-data rule.
  await a.call("notes__read", {});
  texts.push(refused(await a.call("tracker__echo", {})));
  const b = run("client-b", 1);
  await b.call("tracker__echo", {});
  texts.push(refused(await b.call("tracker__echo", {})));
  return texts;
}

/** The error of a run stopped while calls waited for the user's answer. */
function unansweredNote(): string {
  const stopped: RunResult = {
    stdout: "",
    stderr: "",
    error: "the run was stopped",
    exit_code: null,
    truncated: false,
    timed_out: false,
    stopped: "output_limit",
    duration_ms: 1,
    calls: 2,
    images: [],
  };
  return withUnanswered(stopped, ["web__fetch", "web__fetch"]).error ?? "";
}

describe("what the model can read", () => {
  it("collects every kind of text this test claims to scan", async () => {
    const refusalTexts = await refusals();
    expect(refusalTexts).toHaveLength(11);
    expect(refusalTexts[0]).toContain("held");
    expect(refusalTexts[1]).toContain("the user denied this call");
    expect(refusalTexts[2]).toContain("waited 60 s for the user's answer and was not answered");
    expect(refusalTexts[3]).toContain("not answered before the run's deadline");
    expect(refusalTexts[4]).toContain("left too little time to ask the user");
    expect(refusalTexts[9]).toContain("private tool");
    expect(refusalTexts[10]).toContain("budget");
    expect(unansweredNote()).toContain("waited for the user's answer");
    const [full, raised] = descriptions();
    expect(full).toContain("[private]");
    expect(full).toContain("held for review");
    expect(raised).toContain("not running");
  });

  it("names no command, option or file, and no way to approve, allow or reset anything", async () => {
    const texts: [string, string][] = [
      ...descriptions().map((text, i): [string, string] => [`description ${i}`, text]),
      ["run_python input schema", JSON.stringify(runPythonInputJsonSchema)],
      ["SKILL.md", await readSkillGuide()],
      ["the shim's help", NOT_RUNNING_HELP],
      ...(await refusals()).map((text, i): [string, string] => [`refusal ${i}`, text]),
      ["a run that ended while a call waited for the user", unansweredNote()],
    ];
    const found = texts.flatMap(([where, text]) => findings(text).map((f) => `${where}: ${f}`));
    expect(found).toEqual([]);
  });

  it("nor does the runner, whose source the sandbox ships readable", () => {
    const runner = readFileSync(path.join(sandboxImageDir(), "runner.py"), "utf8");
    expect(findings(runner, true)).toEqual([]);
  });

  it("finds what it looks for (the texts as they were, naming the command)", () => {
    const before =
      'toy__echo: the definition of tool "echo" of server "toy" changed, so it is held for ' +
      "the user's review and cannot be called. The user can review it in Code Mode's Servers " +
      "page (Accept or Reject), or accept it with `codemode servers accept SERVER TOOL` (with " +
      "`--config FILE` for `codemode serve --config FILE`).";
    expect(findings(before)).toEqual([
      'a Code Mode command: "codemode servers"',
      'a Code Mode command: "codemode serve"',
      'a command-line option: "`--config"',
      'a command-line option: " --config"',
      'a way to approve, allow or reset something: "accept it"',
    ]);
    expect(
      findings(
        "only private tools can be called until the user resets it in Code Mode (or it restarts).",
      ),
    ).toEqual([
      'a way to approve, allow or reset something: "resets it"',
      'a restart as a way out: "until the user resets it in Code Mode (or it restart"',
    ]);
  });
});

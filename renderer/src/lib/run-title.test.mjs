// Run titles and error lines on the Audit page: what tells runs apart, and what went wrong in
// one line, never Python's caret line. Plain JS so that the renderer's TypeScript program never
// sees Node types.
import { describe, expect, it } from "vitest";
import { summaryOf } from "./audit.ts";
import { calledToolsText, errorLine, runTitle, toolsInCode, TITLE_MAX_CHARS } from "./run-title.ts";

const common = { seq: 3, ts: "2026-12-04T19:00:00.000Z", prev: "0".repeat(64) };
const finished = (fields) => ({
  ...common,
  kind: "run_finished",
  runId: "r1",
  client: "c",
  durationMs: 331,
  calls: 0,
  exitCode: 1,
  stopped: null,
  timedOut: false,
  truncated: false,
  error: null,
  stdoutBytes: 0,
  stderrBytes: 0,
  ...fields,
});

// What Python 3.13 prints for `foo()` with foo undefined: the caret line comes last but one.
const TRACEBACK = [
  "Traceback (most recent call last):",
  '  File "<code>", line 3, in <module>',
  "    foo()",
  "    ^^^",
  "NameError: name 'foo' is not defined",
].join("\n");

describe("run titles", () => {
  it("takes the first comment that says something", () => {
    const code =
      "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport asyncio\n# Sum the invoice totals\nprint(1)";
    expect(runTitle(code)).toBe("Sum the invoice totals");
  });

  it("names the tools the code calls when it has no comment, never 'import asyncio'", () => {
    const code = [
      "import asyncio",
      "a = await filesystem.read_text_file(path='/a')",
      "b = await asyncio.gather(memory.read_graph(), filesystem__list_directory({'path': '/'}))",
      "c = await filesystem.read_text_file(path='/b')",
    ].join("\n");
    expect(toolsInCode(code)).toEqual(["filesystem.read_text_file", "filesystem.list_directory"]);
    expect(runTitle(code)).toBe("calls filesystem.read_text_file, filesystem.list_directory");
  });

  it("names at most three tools, and counts the rest", () => {
    const code = ["a__one()", "b__two()", "c__three()", "d__four()", "e__five()"].join("\n");
    expect(runTitle(code)).toBe("calls a.one, b.two, c.three and 2 more");
  });

  it("falls back to the first statement past the imports, then to the first line", () => {
    expect(runTitle("import asyncio\nfrom x import y\n\nprint(sum(range(10)))")).toBe(
      "print(sum(range(10)))",
    );
    expect(runTitle("import asyncio")).toBe("import asyncio");
  });

  it("cuts a long title, and reads a huge identifier in one pass", () => {
    expect(Array.from(runTitle(`# ${"x".repeat(500)}`))).toHaveLength(TITLE_MAX_CHARS);
    expect(toolsInCode(`${"a_".repeat(100_000)}(`)).toEqual([]);
  });

  it("a run_started row shows the title", () => {
    const entry = {
      ...common,
      kind: "run_started",
      runId: "r1",
      client: "c",
      code: "import asyncio\nprint(await toy__echo({'text': 'x'}))",
      codeBytes: 40,
      codeHash: "a".repeat(64),
    };
    expect(summaryOf(entry)).toBe("calls toy.echo");
  });
});

describe("what a finished run raised", () => {
  it("says the exception's type and message, as the runner reported them", () => {
    const entry = finished({
      error: TRACEBACK,
      errorType: "NameError",
      errorMessage: "name 'foo' is not defined",
    });
    expect(errorLine(entry)).toBe("NameError: name 'foo' is not defined");
    expect(summaryOf(entry)).toBe(
      "Raised an error in 331 ms · no calls · NameError: name 'foo' is not defined",
    );
    expect(summaryOf(entry)).not.toContain("^");
  });

  it("keeps the first line of a long message, and the type alone for an empty one", () => {
    expect(
      errorLine(finished({ error: "x", errorType: "ValueError", errorMessage: "one\ntwo" })),
    ).toBe("ValueError: one");
    expect(
      errorLine(finished({ error: "x", errorType: "KeyboardInterrupt", errorMessage: "" })),
    ).toBe("KeyboardInterrupt");
  });

  it("reads older entries' tracebacks past the caret line", () => {
    expect(errorLine(finished({ error: TRACEBACK }))).toBe("NameError: name 'foo' is not defined");
    expect(errorLine(finished({ error: `${TRACEBACK}\n` }))).toBe(
      "NameError: name 'foo' is not defined",
    );
  });

  it("names the tools a run called, with counts, and counts the calls past them", () => {
    const entry = finished({
      exitCode: 0,
      calls: 6,
      calledTools: [
        { tool: "filesystem__read_text_file", calls: 3 },
        { tool: "memory__read_graph", calls: 1 },
      ],
    });
    expect(calledToolsText(entry)).toBe(
      "filesystem.read_text_file ×3, memory.read_graph and 2 more calls",
    );
    expect(summaryOf(entry)).toBe(
      "Finished in 331 ms · filesystem.read_text_file ×3, memory.read_graph and 2 more calls",
    );
  });
});

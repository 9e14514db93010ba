import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  docstringLine,
  NO_DESCRIPTION,
  renderDictStub,
  renderStub,
  renderSummary,
  SUMMARY_SENTENCE_MAX_CHARS,
} from "./tool-stub.js";

const addSchema = {
  type: "object",
  properties: { a: { type: "integer" }, b: { type: "integer" } },
  required: ["a", "b"],
};

const HOSTILE_DESCRIPTIONS = [
  'Ends the docstring """\nimport os; os.system("id")\n"""',
  'Escaped \\"""\nprint("out")\n\\',
  'Four """" and five """"" and six """""" quotes',
  "Backslash at the end \\",
  "Bad escapes \\N \\x \\u12 \\",
  "NUL \u0000 and other controls \u0001\u001b\u007f\u0085 and \r carriage \r\n returns",
  "Lone surrogate \uD800 here",
  '"""',
  '""',
  '"',
];

/**
 * Where Python's tokenizer ends the `"""` string opened at `start`: a backslash escapes the
 * next character, three quotes close it.
 */
function tripleQuotedEnd(source: string, start: number): number {
  for (let i = start; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source.startsWith('"""', i)) return i;
  }
  return -1;
}

function pythonWithAst(): string | null {
  for (const command of [process.env["PYTHON"], "python3", "python"]) {
    if (command === undefined || command === "") continue;
    const probe = spawnSync(command, ["-c", "import ast"], { encoding: "utf8" });
    if (probe.status === 0) return command;
  }
  return null;
}

describe("typed tool stubs", () => {
  it("renders the add stub docs/architecture.md shows: the signature, then the docstring", () => {
    const stub = renderStub({
      pyName: "toy__add",
      callName: "toy.add",
      description: "Add two integers.",
      private: false,
      inputSchema: {
        ...addSchema,
        properties: { a: { type: "integer", description: "The first." }, b: { type: "integer" } },
      },
      outputSchema: { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] },
    });
    expect(stub).toBe(
      [
        "async def toy.add(*, a: int, b: int) -> dict{sum: int}:",
        '    """Add two integers.',
        "",
        "    a: The first.",
        '    """',
      ].join("\n"),
    );
  });

  it("marks private tools first, and says when there is nothing to say", () => {
    const base = { pyName: "t", callName: "s.t", description: "", inputSchema: {} };
    expect(renderStub({ ...base, private: true })).toBe(
      'async def s.t():\n    """[private]\n    """',
    );
    expect(renderStub({ ...base, private: false })).toBe(
      `async def s.t():\n    """${NO_DESCRIPTION}\n    """`,
    );
  });

  it("renders the params: dict form for a tool without a method", () => {
    const tool = { pyName: "add", description: "Add.", private: false, inputSchema: addSchema };
    expect(renderStub(tool)).toBe(renderDictStub(tool));
  });

  it("keeps the def line one line and the docstring the server's text, as Python reads it", () => {
    const hostile = {
      type: "object",
      properties: {
        'a"""\nimport os': { enum: ['"""\nprint(1)\u2028', "x\\"] },
        ok: { type: "string", description: 'Ends """ here\nimport os' },
      },
    };
    for (const description of HOSTILE_DESCRIPTIONS) {
      const stub = renderStub({
        pyName: "t",
        callName: "s.t",
        description,
        private: false,
        inputSchema: hostile,
      });
      const [head, ...rest] = stub.split("\n");
      expect(head).toMatch(/^async def s\.t\(.*\):$/);
      const body = rest.join("\n");
      const opening = body.indexOf('"""') + 3;
      expect(tripleQuotedEnd(body, opening), description).toBe(body.lastIndexOf('"""'));
      // eslint-disable-next-line no-control-regex -- no raw control character may reach Python
      expect(stub).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u2028]/);
    }
  });
});

describe("tool stubs", () => {
  it("renders the add stub docs/architecture.md shows", () => {
    const stub = renderStub({
      pyName: "add",
      description: "Add two integers.",
      private: false,
      inputSchema: addSchema,
    });
    expect(stub).toBe(
      [
        "async def add(params: dict) -> str:",
        '    """',
        "    Add two integers.",
        "",
        "    params: a: int, b: int",
        '    """',
      ].join("\n"),
    );
  });

  it("indents every description line and says when there are no params", () => {
    const stub = renderStub({
      pyName: "ping",
      description: "\n\nFirst line.\n  Second line.  \n\n",
      private: false,
      inputSchema: { type: "object" },
    });
    expect(stub).toBe(
      [
        "async def ping(params: dict) -> str:",
        '    """',
        "    First line.",
        "      Second line.",
        "",
        "    params: none",
        '    """',
      ].join("\n"),
    );
  });

  it("marks private tools in stubs and summaries", () => {
    const tool = {
      pyName: "create_issue",
      description: "File an issue in the team tracker. Needs a title.",
      private: true,
      inputSchema: { properties: { title: {}, body: {} } },
    };
    expect(renderStub(tool).split("\n")[2]).toBe("    [private]");
    expect(renderSummary(tool)).toBe(
      "create_issue(title, body) [private]: File an issue in the team tracker.",
    );
    expect(renderSummary({ ...tool, private: false })).toBe(
      "create_issue(title, body): File an issue in the team tracker.",
    );
  });

  it("keeps summaries on one bounded line", () => {
    const summary = renderSummary({
      pyName: "t",
      description: `Line one\u2028fake line\nmore ${"word ".repeat(500)}`,
      private: false,
      inputSchema: {},
    });
    expect(summary).not.toMatch(/[\n\r\u2028\u2029]/);
    expect(summary.length).toBeLessThanOrEqual("t(): ".length + SUMMARY_SENTENCE_MAX_CHARS);
    expect(renderSummary({ pyName: "t", description: "", private: false, inputSchema: {} })).toBe(
      "t()",
    );
  });

  it("makes docstring break-out impossible", () => {
    for (const description of HOSTILE_DESCRIPTIONS) {
      const stub = renderStub({ pyName: "t", description, private: false, inputSchema: addSchema });
      const opening = stub.indexOf('"""') + 3;
      const closing = stub.lastIndexOf('"""');
      expect(tripleQuotedEnd(stub, opening), description).toBe(closing);
      expect(stub.endsWith('\n    """')).toBe(true);
      // eslint-disable-next-line no-control-regex -- no raw control character may reach Python
      expect(stub).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
  });

  it("escapes backslashes and every third quote of a run", () => {
    expect(docstringLine("a\\b")).toBe("a\\\\b");
    expect(docstringLine('""""""')).toBe('""\\"""\\"');
    expect(docstringLine("\u0000")).toBe("\\x00");
  });

  // Needs any python3 on the host to parse the stubs; every machine of this project has one.
  it.skipIf(pythonWithAst() === null)(
    "makes docstring break-out impossible, as Python itself parses the stub",
    () => {
      const command = pythonWithAst() ?? "python3";
      // The typed stub's def line names its method `s.t`, which is no Python: the test reads it
      // as `async def t(...)` (the line holds identifiers and quoted text only; see above).
      const stubs = HOSTILE_DESCRIPTIONS.flatMap((description) => [
        renderStub({ pyName: "t", description, private: true, inputSchema: addSchema }),
        renderStub({
          pyName: "t",
          callName: "s.t",
          description,
          private: true,
          inputSchema: addSchema,
        }).replace(/^async def s\.t\(\*, a: int, b: int\):/, "async def t(*, a: int, b: int):"),
      ]);
      const check = [
        "import ast, json, sys",
        "stubs = json.load(sys.stdin)",
        "out = []",
        "for stub in stubs:",
        "    tree = ast.parse(stub)",
        "    fn = tree.body[0]",
        "    ok = (len(tree.body) == 1 and isinstance(fn, ast.AsyncFunctionDef)",
        "          and len(fn.body) == 1 and isinstance(fn.body[0], ast.Expr)",
        "          and isinstance(fn.body[0].value, ast.Constant))",
        "    out.append(fn.body[0].value.value if ok else None)",
        "print(json.dumps(out))",
      ].join("\n");
      const result = spawnSync(command, ["-c", check], {
        input: JSON.stringify(stubs),
        encoding: "utf8",
      });
      expect(result.stderr).toBe("");
      const docstrings = JSON.parse(result.stdout) as (string | null)[];
      docstrings.forEach((docstring, i) => {
        expect(docstring, stubs[i]).not.toBeNull();
        // What Python reads is the server's text, not something the escaping made up.
        const firstLine =
          (HOSTILE_DESCRIPTIONS[Math.floor(i / 2)] ?? "").split(/\r\n|\r|\n/)[0] ?? "";
        const expected = firstLine.trimEnd().replace(/\uD800/g, "\uFFFD");
        expect(docstring).toContain(expected);
        expect(docstring).toContain("[private]");
      });
    },
  );
});

// What the model sees of the wrapped tools through `codemode serve`: the run_python
// description, TOOLS and search_tools in the sandbox, and how the catalog copes with
// hostile servers and tools that change at run time.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_LIMITS, CATALOG_LIMITS } from "../shared/limits.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  assertServeBuilt,
  callLog,
  inlineServerCommand,
  runJson,
  sandboxContainers,
  startServe,
  tempHome,
  TOY_COMMAND,
} from "../test-support/serve-client.js";
import { until } from "../test-support/wait.js";
import { descriptionNames, unresolvedNamesCode } from "../test-support/description-names.js";
import { removeTempDirs } from "../test-support/temp-dir.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { PARAM_NAME_MAX_CHARS } from "../electron/host/core/catalog/schema-render.js";
import { TOOL_PART_MARK } from "../electron/host/core/catalog/run-python-description.js";
import { SCHEMA_MAX_DEPTH } from "../electron/host/core/catalog/schema-compile.js";
import { DESCRIPTION_MAX_BYTES } from "../electron/host/core/catalog/catalog-builder.js";

const fx = await dockerOrSkip();

// Last of all, after every block has closed its serve processes.
afterAll(removeTempDirs);

/** Filler tools whose stubs together are far past the description's budget. */
const FILLER_TOOLS = 100;
const LAST_TOOL = `tool_${FILLER_TOOLS - 1}`;

/**
 * The hostile server's tool list, as a JavaScript expression evaluated in that server: a
 * 10 KB description, odd and overlong parameter names, a 10,000-value enum, 800
 * properties, deep (but checkable) nesting, docstring breakers, a tool that fails with a
 * 5,000-character message, and many ordinary tools.
 */
const HOSTILE_TOOLS = `(() => {
  const object = (properties, extra = {}) => ({ type: "object", properties, ...extra });
  let nested = { type: "string" };
  for (let i = 0; i < 10; i++) nested = object({ inner: nested });
  return [
    { name: "long_doc", description: "Long. " + "x".repeat(10000) + " END", inputSchema: object({}) },
    {
      name: "odd_params",
      description: "Odd parameter names.",
      inputSchema: object({
        "a b": { type: "string" },
        ["k".repeat(200)]: { type: "string" },
        'say """hi"""': {},
        "line\\nbreak": {},
        "back\\\\slash": {},
      }),
    },
    {
      name: "huge_enum",
      description: "An enum of ten thousand values.",
      inputSchema: object({ v: { enum: Array.from({ length: 10000 }, (_, i) => "value" + i) } }),
    },
    {
      name: "wide",
      description: "Eight hundred properties.",
      inputSchema: object(Object.fromEntries(Array.from({ length: 800 }, (_, i) => ["p" + i, { type: "string" }]))),
    },
    { name: "nested", description: "Ten levels deep.", inputSchema: object({ top: nested }) },
    {
      name: "docstring_breaker",
      description: 'Ends early? """ + \\\\ + \\u0000 + \\u2028 + \\\\"""',
      inputSchema: object({}),
    },
    { name: "fail_long", description: "Always fails with a long message.", inputSchema: object({}) },
    ...Array.from({ length: ${FILLER_TOOLS} }, (_, i) => ({
      name: "tool_" + String(i).padStart(2, "0"),
      description: "Tool number " + i + " " + "does nothing in particular ".repeat(8) + "and ends. More.",
      inputSchema: object({ query: { type: "string" }, limit: { type: "integer" } }, { required: ["query"] }),
    })),
  ];
})()`;

const HOSTILE_ON_CALL = `request.params.name === "fail_long"
  ? { isError: true, content: [{ type: "text", text: "E".repeat(5000) }] }
  : { content: [{ type: "text", text: "called " + request.params.name }] }`;

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// every test here starts `codemode serve`, which needs the engine and the sandbox image.
describe.skipIf(!fx)("codemode serve: the catalog", () => {
  const { home } = tempHome();

  beforeAll(() => {
    assertToyServerBuilt();
    assertServeBuilt();
  });

  afterAll(async () => {
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
  });

  describe("the toy server, every tool kept", () => {
    // Shared in order: discovery first, while the call log is still empty.
    const log = callLog();
    let serve: McpSession;

    beforeAll(async () => {
      serve = await startServe({
        home,
        args: ["--env", "TOY_CALL_LOG", "--", ...TOY_COMMAND],
        env: { TOY_CALL_LOG: log.file },
      });
    });

    afterAll(async () => {
      await serve?.close();
    });

    it("discovery never reaches the server", async () => {
      const { value, result } = await runJson<{
        count: number;
        stub: string;
        weather: string[];
        adding: string[];
        nothing: string[];
        after_edit: string[];
        printed: string;
        description: string;
        schema: { properties: Record<string, unknown>; required: string[] };
      }>(
        serve,
        `count = len(TOOLS)
stub = TOOLS["get_weather"]
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()) as printed:
    print(TOOLS["get_weather"])
details = {"printed": printed.getvalue(), "description": TOOLS["get_weather"].description,
           "schema": TOOLS["get_weather"].schema}
weather = search_tools("weather city")
adding = search_tools("add integers")
nothing = search_tools("zebra")
TOOLS.clear()  # the code may edit its copy; search_tools keeps its own
print(json.dumps({"count": count, "stub": stub, "weather": weather, "adding": adding,
                  "nothing": nothing, "after_edit": search_tools("weather"), **details}))`,
      );
      // print(TOOLS[name]) shows the stub; .description and .schema are the server's own.
      expect(value.printed).toBe(`${value.stub}\n`);
      expect(value.description).toBe("Weather for a city (a hyphenated tool name).");
      expect(value.schema.properties).toEqual({ city: { type: "string" } });
      expect(value.schema.required).toEqual(["city"]);
      expect(value.count).toBeGreaterThan(5);
      // One server's tools are methods of `tools`, typed from the input schema.
      expect(value.stub).toContain("async def tools.get_weather(*, city: str):");
      expect(value.weather[0]).toBe("tools.get_weather");
      expect(value.adding[0]).toBe("tools.add");
      expect(value.adding).toContain("tools.add_tool");
      expect(value.nothing).toEqual([]);
      expect(value.after_edit[0]).toBe("tools.get_weather");
      // No call was made, none was counted, nothing reached the server.
      expect(result.calls).toBe(0);
      expect(log.calls()).toEqual([]);
    });

    it("the description's examples name only tools the code has, by their one-server names", async () => {
      const description = await serve.description();
      const names = descriptionNames(description);
      expect(names.awaited).toContain("tools.add");
      expect(description).toContain("r = await tools.add(a=1, b=1)");
      expect(names.dictCalls).toEqual(["add"]);
      expect(names.lookups).toEqual(["tools.add"]);
      // The server's own name is no object in the code: no example may use it.
      expect(names.calls.filter((call) => !call.startsWith("tools."))).toEqual([]);
      expect(description).not.toContain("server__");
      const { value, result } = await runJson<string[]>(serve, unresolvedNamesCode(names));
      expect(value).toEqual([]);
      expect(result.calls).toBe(0);
    });

    it("a schema too deep to check is left out, not fatal", async () => {
      expect(serve.stderr()).toContain(
        `codemode serve: Left out tool "deep" of server "server": its input schema is nested deeper than ${SCHEMA_MAX_DEPTH} levels.`,
      );
      const { value } = await runJson<Record<string, unknown>>(
        serve,
        `print(json.dumps({
    "in_tools": "deep" in TOOLS,
    "in_globals": "deep" in globals(),
    "forged": await attempt(forged("deep")({})),
    "others_work": await add({"a": 2, "b": 2}),
}))`,
      );
      expect(value).toEqual({
        in_tools: false,
        in_globals: false,
        forged: expect.stringMatching(/^ToolError: Unknown tool "deep"/) as unknown,
        others_work: '{"sum":4}',
      });
      expect(await serve.description()).not.toContain("async def deep(");
      expect(log.calls().map((c) => c.tool)).toEqual(["add"]);
    });

    it("list_changed: a tool added at run time is announced and callable in the next run", async () => {
      const before = serve.listChangedCount();
      const added = await runJson<Record<string, string>>(
        serve,
        `print(json.dumps({"added": await add_tool({"name": "fresh_tool"}), "now": "fresh_tool" in TOOLS}))`,
      );
      expect(added.value).toEqual({ added: "added fresh_tool", now: false });
      // The wrapped server told serve; serve tells its own client.
      await until(
        () => serve.listChangedCount() > before,
        "notifications/tools/list_changed from serve",
      );
      // The toy lists more tools than get full stubs: the new one is named in the index.
      expect(await serve.description()).toContain(", fresh_tool");

      const next = await runJson<Record<string, unknown>>(
        serve,
        `print(json.dumps({"in_tools": "fresh_tool" in TOOLS, "result": await fresh_tool()}))`,
      );
      expect(next.value).toEqual({ in_tools: true, result: "fresh_tool called" });
      expect(log.calls().map((c) => c.tool)).toEqual(["add", "add_tool", "fresh_tool"]);
    });

    it("a live tool change that would clash keeps the old catalog, and serve says so", async () => {
      // Last in this block: after it the toy lists two tools named get_weather in Python.
      const before = serve.listChangedCount();
      const { value } = await runJson<Record<string, string>>(
        serve,
        `print(json.dumps({
    "clash": await add_tool({"name": "get_weather"}),
    "later": await add_tool({"name": "later_tool"}),
}))`,
      );
      expect(value).toEqual({ clash: "added get_weather", later: "added later_tool" });
      // serve re-lists the toy's tools in the background and says on stderr that it refused
      // the rebuild: the user is told (engine.lastCatalogError), and the test knows the
      // rebuild was tried. Waited for, not a fixed second: on a loaded machine the re-list
      // can come later, and a run before it would find the old catalog without proving that
      // the clash kept it.
      await until(
        () => serve.stderr().includes('"get_weather"'),
        "serve to report the refused tool change on stderr",
      );
      // The engine refuses the clashing catalog and keeps the old one (as at startup, a
      // clash is never resolved by guessing): get_weather is still the hyphenated tool.
      const after = await runJson<Record<string, unknown>>(
        serve,
        `print(json.dumps({"weather": await get_weather({"city": "Oslo"}), "later": "later_tool" in TOOLS}))`,
      );
      expect(after.value).toEqual({ weather: "Weather in Oslo: sunny, 21 C", later: false });
      expect(serve.listChangedCount()).toBe(before);
    });
  });

  describe("a hostile server", () => {
    let serve: McpSession;
    const total = FILLER_TOOLS + 7;

    beforeAll(async () => {
      serve = await startServe({
        home,
        args: ["--", ...inlineServerCommand(HOSTILE_TOOLS, { onCall: HOSTILE_ON_CALL })],
      });
    });

    afterAll(async () => {
      await serve?.close();
    });

    it("long descriptions are cut", async () => {
      const { value } = await runJson<{ stub: string; bytes: number }>(
        serve,
        `stub = TOOLS["long_doc"]
print(json.dumps({"stub": stub, "bytes": len(stub.encode())}))`,
      );
      expect(value.stub).toContain("Long. xxx");
      expect(value.stub).not.toContain("END");
      expect(value.stub).toContain("x…");
      // The description part is at most 2 KiB; the stub adds its signature and params line.
      expect(value.stub.split("x").length - 1).toBeLessThanOrEqual(DESCRIPTION_MAX_BYTES);
      expect(value.bytes).toBeLessThanOrEqual(DESCRIPTION_MAX_BYTES + 120);
      expect(await serve.description()).not.toContain("x".repeat(DESCRIPTION_MAX_BYTES));
    });

    it("the description falls back to the index of tool names", async () => {
      const description = await serve.description();
      const tools = description.split(TOOL_PART_MARK)[1] ?? "";
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.length).toBeLessThanOrEqual(CATALOG_LIMITS.defaultDescriptionBudgetChars);
      expect(description).not.toContain("async def");
      expect(tools).toContain(
        `Index, server: tools (${total} on 1 server; called as tools.long_doc(...); `,
      );
      expect(description).toContain('r = await tools.tool_00(query="...")');
      expect(tools).toContain(`- "server" as tools (${total} tools): `);
      expect(tools).toContain(`(${total} tools): long_doc, odd_params, `);
      expect(tools).toContain(", tool_00, ");
      // The code finds the last tool, reads its stub and calls it.
      const { value, result } = await runJson<{
        count: number;
        found: string;
        stub: string;
        call: string;
      }>(
        serve,
        `print(json.dumps({
    "count": len(TOOLS),
    "found": search_tools("${FILLER_TOOLS - 1}")[0],
    "stub": TOOLS["${LAST_TOOL}"],
    "call": await ${LAST_TOOL}({"query": "q"}),
}))`,
      );
      expect(value.count).toBe(total);
      expect(value.found).toBe(`tools.${LAST_TOOL}`);
      expect(value.stub).toContain(
        `async def tools.${LAST_TOOL}(*, query: str, limit: int | None = None):`,
      );
      expect(value.call).toBe(`called ${LAST_TOOL}`);
      expect(result.calls).toBe(1);
    });

    it("hostile schemas still render bounded", async () => {
      const { value } = await runJson<{
        problems: string[];
        longest: number;
        odd: string;
        enum: string;
        wide: string;
        nested: string;
        breaker: string;
      }>(
        serve,
        `import ast
problems = []
for name, stub in TOOLS.items():
    # Every stub is one def line of that method, then exactly one docstring: the server's
    # text can neither add a line to the signature nor leave the docstring.
    head, _, body = stub.partition("\\n")
    if not head.startswith(f"async def tools.{name}(") or not head.endswith(":"):
        problems.append(f"{name}: not one def line")
        continue
    try:
        tree = ast.parse("async def f():\\n" + body)
    except SyntaxError as error:
        problems.append(f"{name}: {error}")
        continue
    fn = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(fn, ast.AsyncFunctionDef) or len(fn.body) != 1 or ast.get_docstring(fn) is None:
        problems.append(f"{name}: not one docstring")
print(json.dumps({
    "problems": problems,
    "longest": max(len(s) for s in TOOLS.values()),
    "odd": TOOLS["odd_params"], "enum": TOOLS["huge_enum"], "wide": TOOLS["wide"],
    "nested": TOOLS["nested"], "breaker": TOOLS["docstring_breaker"],
}))`,
      );
      expect(value.problems).toEqual([]);
      // Description (2 KiB) + parameter list (1,000 characters) + the frame around them.
      expect(value.longest).toBeLessThanOrEqual(DESCRIPTION_MAX_BYTES + 1000 + 200);
      // The parameters between the def line's parentheses.
      const paramsOf = (stub: string): string => {
        const head = stub.split("\n")[0] ?? "";
        return head.slice(head.indexOf("(") + 1, head.lastIndexOf(")"));
      };
      // Odd names are quoted; an overlong one is cut at 64 characters.
      expect(value.odd).toContain('"a b": str');
      expect(value.odd).toContain(`"${"k".repeat(PARAM_NAME_MAX_CHARS - 1)}`);
      expect(value.odd).not.toContain("k".repeat(PARAM_NAME_MAX_CHARS + 1));
      // Ten enum values, then "...".
      expect(paramsOf(value.enum)).toMatch(
        /^\*, v: Literal\["value0", .*, "value9", \.\.\.\] \| None = None$/,
      );
      // 800 properties: the list stops at its cap.
      expect(paramsOf(value.wide).length).toBeLessThanOrEqual(1000);
      expect(paramsOf(value.wide).endsWith("…")).toBe(true);
      // Types stop at 5 levels.
      expect(paramsOf(value.nested)).toContain("...");
      expect(paramsOf(value.nested)).not.toContain("str");
      expect(value.breaker).toContain("Ends early?");
    });

    it("refusals reach the code bounded to 500 characters", async () => {
      const { value } = await runJson<{ message: string }>(
        serve,
        `try:
    await fail_long()
    message = "no error"
except ToolError as error:
    message = str(error)
print(json.dumps({"message": message}))`,
      );
      expect(value.message.startsWith('"fail_long" returned an error: EEEE')).toBe(true);
      expect(value.message.length).toBe(BRIDGE_LIMITS.refusalMaxChars);
      expect(value.message.endsWith("…")).toBe(true);
    });
  });
});

// The namespaced form in the real runner, on each runtime: `await shop.add_item(qty=2)` sends the
// very call line `shop__add_item({"qty": 2})` sends (the host sees, and checks, the same), reads
// the result as a value, and raises ToolError with .server, .tool and .reason. The check before
// the run ends code with a mistake in a direct call before its first statement: no call, no
// output. A catalog built by the host's own builder, so the runner reads what the host sends.
import { expect, it } from "vitest";
import { coldSandbox } from "../../../../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../../../../test-support/docker.js";
import { buildCatalog, SCHEMA_SHOWN_MAX_BYTES } from "../../core/catalog/catalog-builder.js";
import type { DiscoveredTool } from "../../core/catalog/catalog-types.js";
import { catalogSandboxTools } from "../../core/catalog/sandbox-tools.js";
import type { CallOutcome } from "../../core/ports/run-types.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgaPj/HwAEggJ/59habAAAAABJRU5ErkJggg==";

const SHOP: DiscoveredTool[] = [
  {
    name: "add_item",
    description: "Put an item in the cart.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string" },
        qty: { type: "integer" },
        size: { enum: ["S", "M", "L"] },
        note: { type: ["string", "null"] },
      },
      required: ["name", "qty"],
      additionalProperties: false,
    },
    outputSchema: { type: "object", properties: { total: { type: "number" } } },
  },
  {
    name: "find-item",
    description: "Find an item.",
    inputSchema: {
      type: "object",
      properties: { "item name": { type: "string" }, from: { type: "string" } },
      required: ["item name"],
    },
  },
  { name: "label", description: "A label.", inputSchema: { type: "object" } },
  { name: "list_items", description: "The cart.", inputSchema: { type: "object" } },
];

const catalog = buildCatalog(
  [
    { server: "shop", tools: SHOP, allow: null, private: false },
    {
      server: "mail",
      tools: [
        { name: "send", description: "Send.", inputSchema: { type: "object" } },
        {
          name: "tag",
          description: "Tag a message.",
          // `nullable` (OpenAPI's, which the bridge's validator honours): a required one may be None.
          inputSchema: {
            type: "object",
            properties: { label: { type: "string", nullable: true } },
            required: ["label"],
          },
        },
        // Named as a namespace object's own helpers could be: each must still be its tool.
        { name: "tool", description: "A tool named tool.", inputSchema: { type: "object" } },
        { name: "params", description: "A tool named params.", inputSchema: { type: "object" } },
        { name: "knows", description: "A tool named knows.", inputSchema: { type: "object" } },
        // A dunder name: its method (`__init___`, as python-names.ts makes it) is still a tool.
        { name: "__init__", description: "A dunder.", inputSchema: { type: "object" } },
        // Required names its top-level `properties` does not list.
        {
          name: "forward",
          description: "Forward a message.",
          inputSchema: {
            type: "object",
            allOf: [{ properties: { to: { type: "string" } } }],
            required: ["to"],
          },
        },
        {
          name: "archive",
          description: "Archive a message.",
          inputSchema: { type: "object", required: ["id"], additionalProperties: true },
        },
        // A schema too large to go to the sandbox: its `from_=` must still mean "from".
        {
          name: "search",
          description: "Search the mail.",
          inputSchema: {
            type: "object",
            properties: {
              from: { type: "string" },
              text: { type: "string", description: "x".repeat(SCHEMA_SHOWN_MAX_BYTES) },
            },
          },
        },
      ],
      allow: null,
      private: false,
    },
  ],
  { prefixWithServer: true },
);
const TOOLS = catalogSandboxTools(catalog);

interface Seen {
  tool: string;
  args: unknown;
}

/** Answers as the bridge would: each tool its own form of result. */
function answerer(seen: Seen[]) {
  return (tool: string, args: unknown): Promise<CallOutcome> => {
    seen.push({ tool, args });
    const a = args as Record<string, unknown>;
    switch (tool) {
      case "shop__add_item":
        if (a.qty === 99) {
          return Promise.resolve({
            ok: false,
            message: 'Arguments of "shop__add_item" do not match its schema: ...',
            reason: "invalid",
            detail: "qty: expected at most 10, got 99\nsecond line",
          });
        }
        return Promise.resolve({ ok: true, value: '{"total":7.5}', form: "structured" });
      case "shop__list_items":
        return Promise.resolve({ ok: true, value: ' [{"name": "tea"}]', form: "json" });
      case "shop__label":
        return Promise.resolve({
          ok: true,
          value: "label\n[image image/png, 70 bytes]",
          form: "content",
          items: [
            { kind: "text", text: "label" },
            { kind: "image", mime: "image/png", bytes: 70, data: PNG_1X1 },
            { kind: "audio", mime: "audio/wav", bytes: 3 },
          ],
        });
      default:
        return Promise.resolve({ ok: true, value: `${tool} ${JSON.stringify(args)}` });
    }
  };
}

describeEachRuntime(docker, "the namespaced form in the runner (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  const run = (code: string, seen: Seen[] = []) =>
    sandbox.run(
      {
        code,
        deadlineSeconds: 30,
        tools: TOOLS,
        down: [{ prefix: "crm__", server: "crm", reason: "not started", namespace: "crm" }],
        held: [
          {
            name: "shop__refund",
            message: "shop__refund is held for review",
            namespace: "shop",
            method: "refund",
          },
        ],
      },
      { onCall: answerer(seen) },
    );

  it("sends the call line the dict form sends, and reads results as values", async () => {
    const seen: Seen[] = [];
    const result = await run(
      `r = await shop.add_item(name="tea", qty=2, note=None)
print(r, type(r).__name__)
print(await shop__add_item({"name": "tea", "qty": 2}))
print(await shop.list_items())
print(await shop.find_item(**{"item name": "mug"}, from_="top"))
text, image, audio = await shop.label()
print(text, image, audio, image.kind, image.mime, image.size, audio.data)
show(image, name="label")
print(dir(shop), shop)
print(TOOLS["shop.find_item"].name, search_tools("item"))`,
      seen,
    );
    expect(result.error).toBeNull();
    expect(seen).toEqual([
      { tool: "shop__add_item", args: { name: "tea", qty: 2 } },
      { tool: "shop__add_item", args: { name: "tea", qty: 2 } },
      { tool: "shop__list_items", args: {} },
      { tool: "shop__find_item", args: { "item name": "mug", from: "top" } },
      { tool: "shop__label", args: {} },
    ]);
    expect(result.stdout.split("\n")).toEqual([
      "{'total': 7.5} dict",
      '{"total":7.5}',
      "[{'name': 'tea'}]",
      'shop__find_item {"item name":"mug","from":"top"}',
      "label <image image/png, 70 bytes> <audio audio/wav, 3 bytes> image image/png 70 None",
      "['add_item', 'find_item', 'label', 'list_items'] <shop: 4 tools; dir(shop) lists them>",
      "shop__find_item ['shop.add_item', 'shop.find_item', 'shop.list_items']",
      "",
    ]);
    expect(result.images.map((i) => [i.name, i.width, i.height])).toEqual([["label.png", 1, 1]]);
  });

  it("calls a tool whose name is one a namespace object could use for itself", async () => {
    const seen: Seen[] = [];
    const result = await run(
      `print(await mail.tool(), await mail.params(), await mail.knows())
print(await mail.__init___())
print(dir(mail))`,
      seen,
    );
    expect(result.error).toBeNull();
    expect(seen.map((s) => s.tool)).toEqual([
      "mail__tool",
      "mail__params",
      "mail__knows",
      "mail____init__",
    ]);
    expect(result.stdout).toBe(
      "mail__tool {} mail__params {} mail__knows {}\nmail____init__ {}\n" +
        "['__init___', 'archive', 'forward', 'knows', 'params', 'search', 'send', 'tag', 'tool']\n",
    );
  });

  it('sends `from_=` as "from" for a tool whose schema stays on the host (too large)', async () => {
    const seen: Seen[] = [];
    const result = await run(
      `print(TOOLS["mail.search"].schema)
await mail.search(from_="ann", text="hi")`,
      seen,
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("None\n");
    expect(seen).toEqual([{ tool: "mail__search", args: { from: "ann", text: "hi" } }]);
  });

  it("raises ToolError with .server, .tool and .reason, in one line", async () => {
    const result = await run(`
async def attempt(call):
    try:
        await call
    except ToolError as e:
        print(e.server, e.tool, e.reason, "|", e)
await attempt(shop.add_item(name="x", qty=99))
await attempt(shop.refund(order=1))
await attempt(crm.find(name="x"))
await attempt(shop.add_item(name="x", qty=float("nan")))
try:
    await shop__add_item({"name": "x", "qty": 99})
except ToolError as e:
    print(e.reason, "|", e)
try:
    getattr(shop, "add_itme")
except AttributeError as e:
    print(e)`);
    expect(result.error).toBeNull();
    expect(result.stdout.split("\n")).toEqual([
      "shop add_item invalid | shop.add_item(): qty: expected at most 10, got 99 second line",
      "shop refund refused | shop__refund is held for review",
      "crm find server_error | crm.find(): server 'crm' is not running: not started",
      "shop add_item invalid | shop.add_item(): its arguments cannot be sent as JSON: Out of range float values are not JSON compliant: nan",
      // The dict form's ToolError is what it always was.
      'None | Arguments of "shop__add_item" do not match its schema: ...',
      "shop has no tool 'add_itme'",
      "",
    ]);
  });

  it("ends code with mistakes in its direct calls before its first statement: no call, no output", async () => {
    const seen: Seen[] = [];
    const result = await run(
      `print("this never prints")
await mail.send()
await shop.add_iten(name="tea", qty=2)
await shop.add_item(nme="tea", qty="2", size="XL")
await shop.add_item(name="tea")
await shp.list_items()`,
      seen,
    );
    expect(seen).toEqual([]);
    expect(result).toMatchObject({ stdout: "", calls: 0, stopped: "check", exit_code: 1 });
    expect(result.exception).toEqual({
      type: "ToolCheckError",
      message: "line 3, column 7: shop has no tool 'add_iten'. Did you mean: shop.add_item?",
    });
    const signature =
      '    async def shop.add_item(*, name: str, qty: int, size: Literal["S", "M", "L"] | None = None, note: str | None = None) -> dict{total: float (optional)}';
    expect(result.error).toBe(
      [
        "ToolCheckError: 7 mistakes found before the code ran (nothing ran, no call made):",
        'line 3, column 7: shop.add_iten(name="tea", qty=2)',
        "    shop has no tool 'add_iten'. Did you mean: shop.add_item?",
        signature,
        'line 4, column 7: shop.add_item(nme="tea", qty="2", size="XL")',
        "    unexpected keyword argument 'nme'. Did you mean: 'name'?",
        '    qty: expected integer, got "2"',
        '    size: expected one of "S", "M", "L", got "XL"',
        "    missing required argument 'name'",
        signature,
        'line 5, column 7: shop.add_item(name="tea")',
        "    missing required argument 'qty'",
        signature,
        "line 6, column 7: shp.list_items()",
        "    name 'shp' is not defined. Did you mean: shop?",
        "",
      ].join("\n"),
    );
  });

  it("leaves to the bridge what the text cannot settle: arguments from a dict, a name rebound", async () => {
    const seen: Seen[] = [];
    const result = await run(
      `args = {"name": "tea", "qty": "2"}
await shop.add_item(**args)
tool = getattr(shop, "add_" + "item")
await tool(name="tea", qty=1, colour="red")
def use(shop):
    return shop.anything()
print("ran")`,
      seen,
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("ran\n");
    expect(seen.map((s) => s.args)).toEqual([
      { name: "tea", qty: "2" },
      { name: "tea", qty: 1, colour: "red" },
    ]);
  });

  it("judges only what the text settles, and stays quiet on the rest", async () => {
    // The image's runner loaded as a module by the run's code: its check, on each snippet.
    const quiet = [
      "shop = {}; shop.nothing()",
      "import json as shop\nshop.dumps(1)",
      "def f(shop): return shop.anything()",
      "for shop in []: shop.x()",
      "with open('/dev/null') as shop: shop.x()",
      "try:\n    pass\nexcept Exception as shop:\n    shop.x()",
      "(shop := 1)\nshop.x()",
      "shop.extra = print\nshop.extra()",
      "print(shop.__doc__, shop.__class__)",
      "args = {}\nshop.add_item(**args)",
      'shop.add_item(name="a", **{"qty": 2})',
      'shop.add_item(name=f"{1}", qty=2.0, size=None, note=None)',
      "shop.refund(order=1)",
      "crm.anything(x=1)",
      'shop.find_item(**{"item name": "x"}, from_="top")',
      "from os import *\nshp.list_items()",
      "globals()['shp'] = shop\nshp.list_items()",
      "list_items()",
      "mail.tag(label=None)",
      'mail.forward(to="a")',
      "mail.archive(id=1)",
      'mail.archive(**{"id": 1})',
      // An empty spread passes nothing positionally: the call goes through.
      'shop.add_item(*[], name="a", qty=1)',
      // Probing for a tool: the name as a string, or a reference the code guards.
      'getattr(shop, "maybe_tool", None)',
      'hasattr(shop, "maybe_tool")',
      "try:\n    shop.maybe_tool(q=1)\nexcept AttributeError:\n    pass",
      "try:\n    shop.maybe_tool()\nexcept Exception:\n    pass",
      "try:\n    shop.maybe_tool()\nexcept:\n    pass",
      "try:\n    shop.maybe_tool()\nexcept (ToolError, AttributeError) as e:\n    print(e)",
      "try:\n    shop.maybe_tool()\nexcept* AttributeError:\n    pass",
      "try:\n    def f():\n        return shop.maybe_tool()\n    f()\nexcept BaseException:\n    pass",
      'if hasattr(shop, "maybe_tool"):\n    shop.maybe_tool()',
      'if not hasattr(shop, "maybe_tool"):\n    pass\nelse:\n    shop.maybe_tool()',
      'while hasattr(shop, "maybe_tool"):\n    shop.maybe_tool()',
      'x = shop.maybe_tool() if hasattr(shop, "maybe_tool") else None',
      'x = hasattr(shop, "maybe_tool") and shop.maybe_tool()',
      'if "maybe_tool" in dir(shop):\n    shop.maybe_tool()',
      "try:\n    shp.list_items()\nexcept NameError:\n    pass",
    ];
    const loud = [
      ["shop.add_item(name=True, qty=1)", "name: expected string, got True"],
      ["shop.add_item(name='a', qty=True)", "qty: expected integer, got True"],
      [
        "shop.add_item(name='a', qty=1, size='XS')",
        'size: expected one of "S", "M", "L", got "XS"',
      ],
      ["shop.add_item(name='a', qty=None)", "qty: expected integer, got None"],
      ["shop.add_item(name=b'a', qty=1)", "name: bytes cannot be sent as JSON"],
      ["shop.add_item(name={'a'}, qty=1)", "name: a set cannot be sent as JSON"],
      ["shop.add_item(name='a', qty=-2.5)", "qty: expected integer, got -2.5"],
      [
        'shop.add_item(**{"name": "a", "qty": 1, "nope": 1})',
        "unexpected keyword argument 'nope'. Did you mean: 'note'?",
      ],
      ["x = shop.list_itemz", "shop has no tool 'list_itemz'. Did you mean: shop.list_items?"],
      ["mail.__init___(x=1)", "unexpected keyword argument 'x'; it takes none"],
      ["mail.archive(note=1)", "missing required argument 'id'"],
      ['shop.add_item("a", qty=1)', "shop.add_item() takes keyword arguments only (name=value)"],
      [
        "mail.add_item(name='a', qty=1)",
        "mail has no tool 'add_item'. Did you mean: shop.add_item?",
      ],
      // A guard that does not cover the reference, or its error, leaves it a mistake.
      [
        "try:\n    shop.add_iten()\nexcept ToolError:\n    pass",
        "shop has no tool 'add_iten'. Did you mean: shop.add_item?",
      ],
      [
        "try:\n    pass\nexcept AttributeError:\n    shop.add_iten()",
        "shop has no tool 'add_iten'. Did you mean: shop.add_item?",
      ],
      [
        "try:\n    pass\nfinally:\n    shop.add_iten()",
        "shop has no tool 'add_iten'. Did you mean: shop.add_item?",
      ],
      [
        'if hasattr(shop, "other"):\n    shop.add_iten()',
        "shop has no tool 'add_iten'. Did you mean: shop.add_item?",
      ],
      [
        'if hasattr(mail, "add_iten"):\n    shop.add_iten()',
        "shop has no tool 'add_iten'. Did you mean: shop.add_item?",
      ],
      [
        "try:\n    shp.list_items()\nexcept AttributeError:\n    pass",
        "name 'shp' is not defined. Did you mean: shop?",
      ],
      // Argument mistakes in a call of a known tool: no handler makes them right.
      [
        "try:\n    shop.add_item(nme='a', qty=1)\nexcept Exception:\n    pass",
        "unexpected keyword argument 'nme'. Did you mean: 'name'?",
      ],
      [
        'if hasattr(shop, "add_item"):\n    shop.add_item(name="a", qty="1")',
        'qty: expected integer, got "1"',
      ],
    ];
    const snippets = [...quiet, ...loud.map(([code]) => code!)];
    const result = await run(`import importlib.util, json
spec = importlib.util.spec_from_file_location("runner_under_test", "/opt/codemode/runner.py")
r = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r)
out = []
for code in json.loads(${JSON.stringify(JSON.stringify(snippets))}):
    names = {k: v for k, v in globals().items() if k in ("shop", "mail", "crm")}
    found = r._check_before_run(code, dict(globals()), names, {"error_max_chars": 4000})
    out.append(None if found is None else found[1].split(": ", 1)[1])
print(json.dumps(out))`);
    expect(result.error).toBeNull();
    const found = JSON.parse(result.stdout) as (string | null)[];
    expect(found.slice(0, quiet.length)).toEqual(quiet.map(() => null));
    expect(found.slice(quiet.length)).toEqual(loud.map(([, said]) => said));
  });

  it("runs code that probes for a tool; the access fails at run time as it always did", async () => {
    const seen: Seen[] = [];
    const result = await run(
      `try:
    await shop.add_itme(name="tea", qty=1)
except AttributeError as e:
    print("caught:", e)
print(getattr(shop, "maybe_tool", None), hasattr(shop, "maybe_tool"), hasattr(shop, "label"))
if hasattr(shop, "maybe_tool"):
    await shop.maybe_tool()
await shop.list_items()
if hasattr(shop, "add_itme") or True:
    await shop.add_itme(name="tea", qty=1)`,
      seen,
    );
    // The guarded references passed the check: the code ran, up to the unguarded access.
    expect(result.stopped).toBeNull();
    expect(seen.map((s) => s.tool)).toEqual(["shop__list_items"]);
    expect(result.stdout).toBe("caught: shop has no tool 'add_itme'\nNone False True\n");
    expect(result.exception?.type).toBe("AttributeError");
    expect(result.error).toContain(
      "AttributeError: shop has no tool 'add_itme'. Did you mean: 'add_item'?",
    );
  });

  it("looks for close names only for the mistakes its report describes", async () => {
    // Each look is a pass over a namespace's tools: 200 misspelt names must not cost 200 of
    // them (on a large server's, minutes), when the report describes the first ten mistakes
    // (seven looks: three of the ten are missing arguments).
    const result = await run(`import importlib.util, json
spec = importlib.util.spec_from_file_location("runner_under_test", "/opt/codemode/runner.py")
r = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r)
looks = []
closest = r._closest
r._closest = lambda *args: looks.append(args[0]) or closest(*args)
code = "\\n".join(f"shop.add_iten_{i}(name='a', qty=1)\\nshop.add_item(nme='a', qty={i})" for i in range(100))
found = r._check_before_run(code, dict(globals()), {"shop": shop}, {"error_max_chars": 100000})
print(len(looks), found[0].splitlines()[0])
print(found[0].splitlines()[-1], "|", found[1])`);
    expect(result.error).toBeNull();
    expect(result.stdout.split("\n")).toEqual([
      "7 ToolCheckError: 300 mistakes found before the code ran (nothing ran, no call made):",
      "... and 290 more | line 1, column 1: shop has no tool 'add_iten_0'. Did you mean: shop.add_item?",
      "",
    ]);
  });

  it("takes a forged check report only as the run's first message", async () => {
    // fd 4 is the runner's protocol output (the code shares its process, so it can write there);
    // a write to a pipe may be partial, so the line is written whole. Then the code waits: the
    // host ends the run on the line.
    const forge = `import os, time
data = b'{"type":"done","error":"forged","check":true}\\n'
while data:
    data = data[os.write(4, data):]
time.sleep(30)`;
    const after = await run(`print("out first", flush=True)\n${forge}`);
    expect(after.stopped).toBe("protocol_violation");
    expect(after.error).toContain("a check report came after the run's code had started");
    // As the run's first message it reads as the check's: and no call was made, which holds.
    const first = await run(forge);
    expect(first).toMatchObject({ stopped: "check", calls: 0, error: "forged" });
  });
});

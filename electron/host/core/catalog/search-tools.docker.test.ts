import { afterAll, describe, expect, it } from "vitest";
import { CATALOG_LIMITS } from "../../../../shared/limits.js";
import { dockerOrSkip, testOwner } from "../../../../test-support/docker.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { renderStub } from "./tool-stub.js";

const fx = await dockerOrSkip();

// A catalog big enough that every query word matches more tools than a search returns.
const TOOLS = [
  { pyName: "get_weather", description: "Current weather for a city.", props: { city: {} } },
  { pyName: "send_mail", description: "Send an email.", props: { to: {}, body: {} } },
  ...Array.from({ length: 150 }, (_, i) => ({
    pyName: `tool_${String(i).padStart(3, "0")}`,
    description: `Filler tool number ${i}.`,
    props: { query: {} },
  })),
].map((t) => ({
  name: t.pyName,
  description: t.description,
  schema: JSON.stringify({ type: "object", properties: t.props }),
  stub: renderStub({
    pyName: t.pyName,
    description: t.description,
    private: false,
    inputSchema: { type: "object", properties: t.props },
  }),
}));

// Skipped only outside CI when no engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("search_tools and TOOLS inside the sandbox", () => {
  const sandbox = fx
    ? new Sandbox({ engine: fx.engine, image: fx.image, owner: testOwner(), poolSize: 0 })
    : null;

  afterAll(async () => {
    await sandbox?.close();
  });

  it("look tools up from the code, bounded, without a call", async () => {
    const result = await sandbox!.run({
      tools: TOOLS,
      code: `import json
def error(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__
print(json.dumps({
    "weather": search_tools("weather city"),
    "stub": TOOLS["get_weather"],
    "stubs": search_tools("mail", detail="stub"),
    "default": len(search_tools("tool")),
    "three": search_tools("filler", limit=3),
    "capped": len(search_tools("tool", limit=10_000)),
    "long_query": len(search_tools("tool " + "x" * 1_000_000)),
    "cut_query": search_tools("x" * ${CATALOG_LIMITS.searchQueryMaxChars} + " weather"),
    "nothing": search_tools("zebra"),
    "bad_limit": error(lambda: search_tools("tool", limit=0)),
    "bad_detail": error(lambda: search_tools("tool", detail="all")),
    "bad_query": error(lambda: search_tools(None)),
}))`,
    });
    expect(result.error, result.stderr).toBeNull();
    const value = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(value).toEqual({
      weather: ["get_weather"],
      stub: TOOLS[0]?.stub,
      stubs: [TOOLS[1]?.stub],
      default: CATALOG_LIMITS.searchDefaultResults,
      three: ["tool_000", "tool_001", "tool_002"],
      capped: CATALOG_LIMITS.searchMaxResults,
      long_query: CATALOG_LIMITS.searchDefaultResults,
      // The words past the cut are not searched.
      cut_query: [],
      nothing: [],
      bad_limit: "ValueError",
      bad_detail: "ValueError",
      bad_query: "TypeError",
    });
    expect(result.calls).toBe(0);
  });

  it("TOOLS[name] reads as the stub and gives the description and the schema, as copies", async () => {
    const result = await sandbox!.run({
      tools: TOOLS,
      code: `import json
t = TOOLS["get_weather"]
print(t)
edited = t.schema
edited["properties"]["city"]["type"] = "edited"
TOOLS["send_mail"] = "replaced"
print(json.dumps({
    "name": t.name, "description": t.description, "schema": t.schema,
    "stub": t.stub, "is_str": isinstance(t, str), "dumps": json.loads(json.dumps(t)),
    "repr": repr(t), "len": len(t), "search": search_tools("mail", detail="stub"),
}))`,
    });
    expect(result.error, result.stderr).toBeNull();
    const [printed, json] = [
      result.stdout.slice(0, TOOLS[0]!.stub.length + 1),
      result.stdout.slice(TOOLS[0]!.stub.length + 1),
    ];
    // print(TOOLS[name]) shows the stub, as before.
    expect(printed).toBe(`${TOOLS[0]!.stub}\n`);
    expect(JSON.parse(json)).toEqual({
      name: "get_weather",
      description: "Current weather for a city.",
      // Editing what .schema returned changed nothing: each read is a fresh copy.
      schema: { type: "object", properties: { city: {} } },
      stub: TOOLS[0]!.stub,
      is_str: true,
      dumps: TOOLS[0]!.stub,
      repr: TOOLS[0]!.stub,
      len: TOOLS[0]!.stub.length,
      // Replacing an entry of TOOLS does not reach search_tools.
      search: [TOOLS[1]!.stub],
    });
  });
});

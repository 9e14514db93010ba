// A catalog of 100 tools on five servers, shaped like real ones: each tool with one to six
// parameters of every kind (strings, integers, numbers, booleans, enums, lists, nested objects),
// some required, about half of them documented, a third of the tools with an output schema.
// A fixed pseudo-random sequence: the same catalog on every run. Used by bench/workbench.ts for
// stub sizes and the check's cost.
import type { DiscoveredTool, ServerTools } from "../electron/host/core/catalog/catalog-types.js";

const SERVERS = ["tracker", "calendar", "crm", "docs", "billing"];
const VERBS = ["get", "list", "create", "update", "search", "delete", "archive", "export"];
const NOUNS = ["issue", "event", "contact", "page", "invoice", "comment", "label", "report"];
const WORDS = ["limit", "query", "owner", "status", "title", "since", "tags", "page", "notes"];

/** A fixed sequence in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

type Schema = Record<string, unknown>;

function parameter(next: () => number, name: string): Schema {
  const documented = next() < 0.5;
  const described = documented
    ? { description: `The ${name} to use. More words follow here.` }
    : {};
  const kind = Math.floor(next() * 7);
  switch (kind) {
    case 0:
      return { type: "integer", ...described };
    case 1:
      return { type: "number", ...described };
    case 2:
      return { type: "boolean", ...described };
    case 3:
      return { enum: ["open", "closed", "all"], ...described };
    case 4:
      return { type: "array", items: { type: "string" }, ...described };
    case 5:
      return {
        type: "object",
        properties: { id: { type: "string" }, weight: { type: "integer" } },
        required: ["id"],
        ...described,
      };
    default:
      return { type: "string", ...described };
  }
}

/** The 100 tools, as their servers list them. */
export function hundredTools(): ServerTools[] {
  const next = random(7);
  const servers: ServerTools[] = SERVERS.map((server) => ({
    server,
    tools: [],
    allow: null,
    private: false,
  }));
  for (let i = 0; i < 100; i++) {
    const server = servers[i % servers.length]!;
    const verb = VERBS[Math.floor(next() * VERBS.length)]!;
    const noun = NOUNS[Math.floor(next() * NOUNS.length)]!;
    const properties: Schema = {};
    const count = 1 + Math.floor(next() * 6);
    for (let k = 0; k < count; k++) {
      const name = WORDS[(i + k) % WORDS.length]!;
      properties[name] = parameter(next, name);
    }
    const names = Object.keys(properties);
    const tool: DiscoveredTool = {
      name: `${verb}_${noun}_${i}`,
      description:
        `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} of the ${server.server}. ` +
        "Returns what was found, one entry per match, with its id and fields.",
      inputSchema: {
        type: "object",
        properties,
        required: names.filter((_, k) => k === 0 || next() < 0.3),
      },
    };
    if (next() < 1 / 3) {
      tool.outputSchema = {
        type: "object",
        properties: { id: { type: "string" }, count: { type: "integer" } },
        required: ["id"],
      };
    }
    server.tools.push(tool);
  }
  return servers;
}

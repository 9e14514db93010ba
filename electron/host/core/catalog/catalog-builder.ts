import { visibleText } from "../../../../shared/hidden-chars.js";
import { PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { maskDeep, maskSecrets } from "../secrets/secret-mask.js";
import type {
  Catalog,
  CatalogTool,
  DiscoveredTool,
  LeftOutTool,
  ServerTools,
} from "./catalog-types.js";
import { isDeprecated } from "./deprecated.js";
import { namespaceFor, pythonNameFor, toPythonName } from "./python-names.js";
import { compileInputSchema, compileOutputSchema, normaliseInputSchema } from "./schema-compile.js";
import { cutUtf8 } from "../../util/text-cut.js";
import { toolNameProblem } from "./tool-name-check.js";
import { renderStub, renderSummary } from "./tool-stub.js";
import { KiB } from "../../util/units.js";

export const DESCRIPTION_MAX_BYTES = 2 * KiB;

/**
 * TOOLS[name].schema in the sandbox: a tool's input schema (as JSON, masked) goes to the
 * runner only up to this size (the stub still lists its parameters)...
 */
export const SCHEMA_SHOWN_MAX_BYTES = 16 * KiB;

/**
 * A server or tool name quoted in a catalog warning is cut to this, so it cannot flood the
 * user's screen.
 */
export const WARNING_NAME_MAX_CHARS = 100;

/** A configuration the catalog cannot honour: startup stops with this message. */
export class CatalogError extends Error {
  override name = "CatalogError";
}

export interface BuildCatalogOptions {
  /** Name every tool `server__tool`: on whenever several servers are wrapped. */
  prefixWithServer: boolean;
  /**
   * Secret values to keep out of what the code reads (configSecrets): a server can put its
   * own API key in a tool's description or schema, and the stub and the run_python description
   * would hand it to the code. The catalog is rebuilt whenever a server restarts, so with new
   * secrets too.
   */
  secrets?: readonly string[] | undefined;
}

/**
 * A server-provided name as messages show it: quoted, so it cannot pose as part of the message
 * or start a new line, cut, so it cannot flood the user's screen, and with every invisible or
 * bidi character escaped, so "send" followed by tag characters does not read as "send".
 */
function shown(name: string): string {
  // A backslash and a quote escaped as JSON would; cut after the hidden characters are escaped
  // (each shows as several), never inside an escape.
  const quoted = name.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  return `"${visibleText(quoted, { maxChars: WARNING_NAME_MAX_CHARS })}"`;
}

function toolLabel(server: string, tool: string): string {
  return `tool ${shown(tool)} of server ${shown(server)}`;
}

interface KeptTools {
  tools: CatalogTool[];
  /** Tools the server lists but the catalog leaves out, with the reason. */
  leftOut: Map<string, LeftOutTool["reason"]>;
}

/** Where one server's tools go in the code: its namespace, and the methods taken there so far. */
interface Place {
  namespace: string;
  methods: Set<string>;
}

function keepTools(
  entry: ServerTools,
  options: BuildCatalogOptions,
  warnings: string[],
  place: Place,
): KeptTools {
  const { prefixWithServer } = options;
  const allowed = entry.allow === null ? null : new Set(entry.allow);
  const privateNames = typeof entry.private === "boolean" ? null : new Set(entry.private);
  const kept: CatalogTool[] = [];
  const leftOut = new Map<string, LeftOutTool["reason"]>();

  for (const discovered of entry.tools) {
    if (allowed !== null && !allowed.has(discovered.name)) continue;
    // The pins refuse the same names by the same measure: such a tool is never pinned.
    const refused = toolNameProblem(discovered.name);
    if (refused !== null) {
      warnings.push(`Left out ${toolLabel(entry.server, discovered.name)}: ${refused.text}.`);
      leftOut.set(discovered.name, refused);
      continue;
    }
    // Its definition is not the pinned one: out until the user accepts it.
    if (entry.held?.has(discovered.name)) {
      leftOut.set(discovered.name, {
        code: "held_for_review",
        text: "held for review: its definition changed or is new since the server's tools were accepted",
      });
      continue;
    }
    // Only the exact definition pinned is taken, whatever kept a tool from being pinned or held.
    if (entry.pinned !== undefined && entry.pinned.get(discovered.name) !== discovered.hash) {
      const reason = "its definition is not the one pinned";
      warnings.push(`Left out ${toolLabel(entry.server, discovered.name)}: ${reason}.`);
      leftOut.set(discovered.name, { code: "not_pinned", text: reason });
      continue;
    }
    // The runner may only call names up to this length (a longer one is a protocol violation),
    // so a tool whose name would be longer could never be called: say so instead.
    if (
      pythonNameFor(entry.server, discovered.name, prefixWithServer).length >
      PROTOCOL_LIMITS.toolNameMaxChars
    ) {
      const reason = `its Python name would be longer than ${PROTOCOL_LIMITS.toolNameMaxChars} characters`;
      warnings.push(`Left out ${toolLabel(entry.server, discovered.name)}: ${reason}.`);
      leftOut.set(discovered.name, { code: "name_too_long", text: reason });
      continue;
    }
    const inputSchema = normaliseInputSchema(discovered.inputSchema);
    const compiled = compileInputSchema(inputSchema);
    if (!compiled.ok) {
      const warning = `Left out ${toolLabel(entry.server, discovered.name)}: ${compiled.reason}.`;
      warnings.push(warning);
      leftOut.set(discovered.name, { code: "schema_unusable", text: compiled.reason });
      continue;
    }
    const isPrivate =
      privateNames === null ? entry.private === true : privateNames.has(discovered.name);
    const output = outputCheck(entry.server, discovered, warnings);
    kept.push(
      catalogTool(
        entry.server,
        discovered,
        { inputSchema, validate: compiled.validate, ...output },
        { private: isPrivate, namespace: place.namespace, method: methodIn(place, discovered) },
        options,
      ),
    );
  }
  return { tools: kept, leftOut };
}

/**
 * The tool's method in its namespace: its name by the rule single-server names follow, or null
 * when another tool there took it (two names that differ only in characters an identifier cannot
 * hold); such a tool is still called by its Python name.
 */
function methodIn(place: Place, discovered: DiscoveredTool): string | null {
  const method = toPythonName(discovered.name);
  if (place.methods.has(method)) return null;
  place.methods.add(method);
  return method;
}

/** The tool's output schema, compiled; none (with a warning) when it cannot be. */
function outputCheck(
  server: string,
  discovered: DiscoveredTool,
  warnings: string[],
): { outputSchema: Record<string, unknown> | null; validateOutput: CatalogTool["validateOutput"] } {
  const schema = discovered.outputSchema;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return { outputSchema: null, validateOutput: null };
  const compiled = compileOutputSchema(schema);
  if (compiled.ok) return { outputSchema: schema, validateOutput: compiled.validate };
  warnings.push(
    `The results of ${toolLabel(server, discovered.name)} are not checked: ${compiled.reason}.`,
  );
  return { outputSchema: null, validateOutput: null };
}

/** The schema as the code may read it, or null past SCHEMA_SHOWN_MAX_BYTES. */
function schemaText(schema: Record<string, unknown>): string | null {
  const text = JSON.stringify(schema);
  return Buffer.byteLength(text, "utf8") <= SCHEMA_SHOWN_MAX_BYTES ? text : null;
}

interface Schemas {
  inputSchema: Record<string, unknown>;
  validate: CatalogTool["validate"];
  outputSchema: Record<string, unknown> | null;
  validateOutput: CatalogTool["validateOutput"];
}

function catalogTool(
  server: string,
  discovered: DiscoveredTool,
  schemas: Schemas,
  where: { private: boolean; namespace: string; method: string | null },
  options: BuildCatalogOptions,
): CatalogTool {
  const secrets = options.secrets ?? [];
  const pyName = pythonNameFor(server, discovered.name, options.prefixWithServer);
  const source = {
    pyName,
    // Masked before the cut, so a cut cannot leave half a secret that no longer matches.
    description: cutUtf8(
      maskSecrets(
        typeof discovered.description === "string" ? discovered.description : "",
        secrets,
      ),
      DESCRIPTION_MAX_BYTES,
    ),
    private: where.private,
    inputSchema: schemas.inputSchema,
  };
  // The code reads the schemas only as the stub renders them; calls are checked against the
  // server's own schema (validate), which the code never sees.
  const shown = {
    ...source,
    callName: where.method === null ? undefined : `${where.namespace}.${where.method}`,
    inputSchema: maskDeep(schemas.inputSchema, secrets),
    outputSchema: schemas.outputSchema === null ? null : maskDeep(schemas.outputSchema, secrets),
  };
  return {
    ...source,
    namespace: where.namespace,
    method: where.method,
    server,
    tool: discovered.name,
    deprecated: isDeprecated(discovered),
    validate: schemas.validate,
    validateOutput: schemas.validateOutput,
    stub: renderStub(shown),
    shownSchema: schemaText(shown.inputSchema),
    summary: renderSummary(shown),
    ...(discovered.hash === undefined ? {} : { hash: discovered.hash }),
  };
}

/**
 * Every allow entry and private label must name a tool the catalog kept: a typo, a tool the
 * server does not list or one left out for its schema would otherwise quietly drop a tool or,
 * worse, a private label.
 */
function checkNamesKept(entry: ServerTools, kept: KeptTools): void {
  const keptNames = new Set(kept.tools.map((tool) => tool.tool));
  const listed = new Set(entry.tools.map((tool) => tool.name));
  const why = (name: string): string => {
    const reason = kept.leftOut.get(name);
    if (reason !== undefined) return `it was left out: ${reason.text}`;
    if (!listed.has(name)) return "the server lists no such tool";
    return "it is not on the server's allow list";
  };
  // A server that lists nothing (not started yet, or failed) gives nothing to check against,
  // and nothing of it can be called: its labels are checked once it lists its tools.
  if (entry.tools.length === 0) return;
  for (const name of entry.allow ?? []) {
    // Allowing a tool whose schema left it out is harmless (it stays out, with its warning);
    // allowing one the server does not list is a mistake worth stopping for.
    if (!keptNames.has(name) && !kept.leftOut.has(name)) {
      throw new CatalogError(
        `Server ${shown(entry.server)}: allow names tool ${shown(name)}, but ${why(name)}.`,
      );
    }
  }
  if (typeof entry.private === "boolean") return;
  for (const name of entry.private) {
    // A held tool cannot be called, so its label cannot be dodged: the check waits for review.
    if (kept.leftOut.get(name)?.code === "held_for_review") continue;
    if (!keptNames.has(name)) {
      throw new CatalogError(
        `Server ${shown(entry.server)}: private label ${shown(name)} names no kept tool: ${why(name)}.`,
      );
    }
  }
}

/**
 * The tools the sandbox will see, from what each wrapped server listed. Schemas that cannot be
 * checked leave their tool out with a warning; configuration mistakes and name clashes throw
 * CatalogError, since running with them would mean calling the wrong tool or none.
 */
export function buildCatalog(servers: ServerTools[], options: BuildCatalogOptions): Catalog {
  const warnings: string[] = [];
  const leftOut: LeftOutTool[] = [];
  const held = new Map<string, string>();
  const tools: CatalogTool[] = [];
  const byPyName = new Map<string, CatalogTool>();
  const places = namespaces(servers, options.prefixWithServer);
  const heldMethods = new Map<string, { namespace: string; method: string }>();

  for (const entry of servers) {
    const place = places.get(entry.server) ?? { namespace: "_", methods: new Set<string>() };
    const kept = keepTools(entry, options, warnings, place);
    checkNamesKept(entry, kept);
    for (const [tool, reason] of kept.leftOut) {
      leftOut.push({ server: entry.server, tool, reason });
      if (reason.code !== "held_for_review") continue;
      const pyName = pythonNameFor(entry.server, tool, options.prefixWithServer);
      // A name the code could not use (too long) needs no message.
      if (pyName.length > PROTOCOL_LIMITS.toolNameMaxChars) continue;
      held.set(pyName, heldToolMessage(pyName, entry.server, tool));
      const method = toPythonName(tool);
      if (!place.methods.has(method))
        heldMethods.set(pyName, { namespace: place.namespace, method });
    }
    for (const tool of kept.tools) {
      const other = byPyName.get(tool.pyName);
      if (other !== undefined) {
        throw new CatalogError(
          `Two tools would both be called ${shown(tool.pyName)} in Python: ` +
            `${toolLabel(other.server, other.tool)} and ${toolLabel(tool.server, tool.tool)}. ` +
            "Leave one out with allow.",
        );
      }
      byPyName.set(tool.pyName, tool);
      tools.push(tool);
    }
  }
  // A held name that is also a kept tool's (a clash) is that tool: the catalog wins.
  for (const pyName of byPyName.keys()) {
    held.delete(pyName);
    heldMethods.delete(pyName);
  }
  return { tools, byPyName, warnings, leftOut, held, heldMethods };
}

/**
 * Each server's namespace. A namespace never takes the name of a tool's own global (a server
 * named `a__b` beside a tool `b` of a server `a`): it gets a trailing `_` instead. Servers whose
 * names become one identifier share one namespace, as their tools already share a prefix.
 */
function namespaces(
  servers: readonly ServerTools[],
  prefixWithServer: boolean,
): Map<string, Place> {
  const globals = new Set<string>();
  for (const entry of servers)
    for (const tool of entry.tools)
      globals.add(pythonNameFor(entry.server, tool.name, prefixWithServer));
  const byName = new Map<string, Place>();
  const places = new Map<string, Place>();
  for (const entry of servers) {
    const namespace = namespaceFor(entry.server, prefixWithServer, globals);
    let place = byName.get(namespace);
    if (place === undefined) {
      place = { namespace, methods: new Set() };
      byName.set(namespace, place);
    }
    places.set(entry.server, place);
  }
  return places;
}

/**
 * What a call to a held tool raises in the code: why it cannot be called, and that the user
 * reviews it in Code Mode. Never how: a model that can run commands would run what it is
 * told, approving the change itself (model-facing-text.test.ts keeps every such text free of
 * commands and of ways to approve). Names only (quoted and cut), nothing of the definition.
 */
export function heldToolMessage(pyName: string, server: string, tool: string): string {
  return (
    `${pyName}: the definition of ${toolLabel(server, tool)} changed (or the tool is new) ` +
    "since the user last reviewed the server's tools, so it is held and cannot be called " +
    "until the user reviews it in Code Mode."
  );
}

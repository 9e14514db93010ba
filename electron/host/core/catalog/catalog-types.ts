import type { LeftOutCode, LeftOutReason } from "../../../../shared/api/api-views.js";
import type { ValidateFunction } from "ajv";

/** A tool as a wrapped server lists it in `tools/list`. */
export interface DiscoveredTool {
  name: string;
  description?: string | undefined;
  /** A name for people; some servers say "(Deprecated)" here. */
  title?: string | undefined;
  /** MCP's hints, and any a server adds (a `deprecated` of its own, say). */
  annotations?: { title?: string | undefined; [key: string]: unknown } | undefined;
  inputSchema: Record<string, unknown>;
  /** What its results' structured content looks like (MCP's outputSchema), when it says. */
  outputSchema?: Record<string, unknown> | undefined;
  /**
   * sha256 of its whole wire object, as the pins hash it (tool-hash.ts); absent where the
   * listing was not hashed (then a server with pins has none of its tools admitted).
   */
  hash?: string | undefined;
}

/** What the catalog builder needs to know about one wrapped server. */
export interface ServerTools {
  server: string;
  tools: DiscoveredTool[];
  /** The server's own tool names to keep; null keeps every tool. */
  allow: readonly string[] | null;
  /** true marks every tool private; a list marks those tools (server's own names). */
  private: boolean | readonly string[];
  /** Listed tools whose definitions are held for review (pins): left out of the catalog. */
  held?: ReadonlySet<string>;
  /**
   * With pins: the only definitions the catalog may take, name -> hash of the pinned one (not
   * held). A listed tool whose hash is not the one here stays out, whatever the reason it
   * was not pinned. Absent where no pins are kept (servers given on `serve`'s command line,
   * the config's own check before a save): then every listed tool may be taken.
   */
  pinned?: ReadonlyMap<string, string>;
}

/** One tool as the sandbox and the bridge see it. */
export interface CatalogTool {
  /** The Python identifier the code calls, e.g. `notes__search`. */
  pyName: string;
  /**
   * The object in the code's globals that holds its server's tools (`notes`), each as an async
   * method taking keyword arguments: `await notes.search(query="q3")`.
   */
  namespace: string;
  /** Its method in `namespace` (`search`); null when another tool took that name there. */
  method: string | null;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  /** The server's description, cut to DESCRIPTION_MAX_BYTES. */
  description: string;
  /** The server marks it deprecated (deprecated.ts): suggestions prefer other tools. */
  deprecated: boolean;
  private: boolean;
  inputSchema: Record<string, unknown>;
  /** Compiled once, used by the bridge for every call. */
  validate: ValidateFunction;
  /**
   * Checks the structured content of its results (its output schema, compiled once); null
   * when it declares none, or one that could not be compiled (a warning says so).
   */
  validateOutput: ValidateFunction | null;
  /**
   * `async def notes.search(*, query: str) -> any:` with docstring: what TOOLS[name] shows (the
   * `params: dict` form for a tool without a method).
   */
  stub: string;
  /**
   * The input schema as JSON text with secrets masked, for TOOLS[name].schema; null when
   * longer than SCHEMA_SHOWN_MAX_BYTES (the stub still lists the parameters).
   */
  shownSchema: string | null;
  /** One line: `name(a, b) [private]: first sentence`. */
  summary: string;
  /** The hash of the definition it was built from (DiscoveredTool.hash), where hashed. */
  hash?: string;
}

/** A tool a server lists that the catalog could not keep, and why (as data, for the UI). */
export interface LeftOutTool {
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  reason: LeftOutReason & { code: CatalogLeftOutCode };
}

/** The codes the catalog itself gives; the others come from the user's policy. */
export type CatalogLeftOutCode = Exclude<LeftOutCode, "not_allowed" | "not_in_catalog">;

export interface Catalog {
  tools: readonly CatalogTool[];
  byPyName: ReadonlyMap<string, CatalogTool>;
  /** Tools left out and why (too deep a schema, ...): shown to the user, never fatal. */
  warnings: readonly string[];
  /** The same tools as data: what the UI shows beside each tool (names are never cut here). */
  leftOut: readonly LeftOutTool[];
  /**
   * Tools held for the user's review, by the Python name they would have, with the message a
   * call gets (the runner raises it; the bridge refuses a forged call with it). Absent: none.
   */
  held?: ReadonlyMap<string, string>;
  /** The namespace and method each held tool would have, by its Python name. Absent: none. */
  heldMethods?: ReadonlyMap<string, { namespace: string; method: string }>;
}

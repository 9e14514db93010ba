// The full tool list of a wrapped server, page after page.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ListedForm } from "./pins/pin-state.js";
import { pinnedForm } from "./pins/tool-hash.js";

/** A server that paginates `tools/list` past this many pages is treated as broken. */
export const TOOL_LIST_MAX_PAGES = 100;

/**
 * A server listing more tools than this (all pages together) is treated as broken: a
 * hostile one listing hundreds of thousands would grow the host's memory and the pin file
 * (which stops storing at PIN_STORED_MAX_BYTES).
 */
export const TOOLS_MAX_PER_SERVER = 10_000;

/**
 * A tools/list page exactly as it arrived: the SDK's ListToolsResultSchema drops keys it does
 * not know (a tool's extra fields, unknown annotations), and a pin must cover the whole wire
 * object, so the page is read with this loose schema and checked with the SDK's one after.
 */
const wirePageSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});

/**
 * A server's tools: as the SDK reads them, and each one's whole wire object as pinned, in the
 * same order (`forms[i]` is the wire form of `tools[i]`), so the catalog takes a tool only
 * with the hash its pin was made from.
 */
export interface ToolListing {
  tools: Tool[];
  forms: ListedForm[];
}

/**
 * Follows `nextCursor` until the server stops giving one. More than `maxTools` tools in all
 * fails the listing (TOOLS_MAX_PER_SERVER).
 */
export async function listAllTools(
  client: Client,
  timeoutMs: number,
  maxTools: number = TOOLS_MAX_PER_SERVER,
): Promise<ToolListing> {
  // Straight request() rather than client.listTools(): the SDK's listTools caches
  // output-schema validators per page, forgetting earlier pages' tools. Results are
  // untrusted further on anyway, so no structured-content validation is done here.
  const tools: Tool[] = [];
  const forms: ListedForm[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < TOOL_LIST_MAX_PAGES; page++) {
    const wire = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      wirePageSchema,
      { timeout: timeoutMs },
    );
    // The SDK's own check, as before: a page it refuses fails the listing.
    const result = ListToolsResultSchema.parse(wire);
    if (tools.length + result.tools.length > maxTools) {
      throw new Error(`tools/list listed more than ${maxTools} tools`);
    }
    tools.push(...result.tools);
    // Every tool, whatever its name: the pins decide what they store (not a megabyte name, see
    // toolNameProblem), and the catalog takes only what they pinned.
    for (const raw of wire.tools) forms.push({ name: raw.name, ...pinnedForm(raw) });
    cursor = result.nextCursor;
    if (cursor === undefined) return { tools, forms };
    if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor "${cursor}"`);
    seen.add(cursor);
  }
  throw new Error(`tools/list went on for more than ${TOOL_LIST_MAX_PAGES} pages`);
}

/**
 * Whether two listings have the same wire forms, in any order (the pins compare these): a
 * listing that is only reordered is no change, and rebuilds nothing.
 */
export function sameForms(a: readonly ListedForm[], b: readonly ListedForm[]): boolean {
  if (a.length !== b.length) return false;
  // The hash covers the whole wire object, the name included.
  const left = a.map((form) => form.hash).sort();
  const right = b.map((form) => form.hash).sort();
  return left.every((hash, i) => hash === right[i]);
}

/** The listed tools with the hash of each one's wire form (see ToolListing), for the catalog. */
export function hashedTools(
  tools: readonly Tool[],
  forms: readonly ListedForm[] | null,
): (Tool & { hash?: string | undefined })[] {
  // Not the same listing (never so today): no hashes, so pins admit none of these tools.
  if (forms?.length !== tools.length) return [...tools];
  return tools.map((tool, i) => ({ ...tool, hash: forms[i]?.hash }));
}

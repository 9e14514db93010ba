// The full tool list of a wrapped server, page after page.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";

/** Follows `nextCursor` until the server stops giving one. */
export async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  // Straight request() rather than client.listTools(): the SDK's listTools caches
  // output-schema validators per page, forgetting earlier pages' tools. Results are
  // untrusted further on anyway, so no structured-content validation is done here.
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < SERVER_LIMITS.toolListMaxPages; page++) {
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      { timeout: timeoutMs },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor "${cursor}"`);
    seen.add(cursor);
  }
  throw new Error(`tools/list went on for more than ${SERVER_LIMITS.toolListMaxPages} pages`);
}

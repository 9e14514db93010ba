import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What the bridge needs from the wrapped servers. `ServerSet` satisfies it structurally;
 * the bridge declares its own copy so it depends on this shape only, not on that module.
 */
export interface ToolCaller {
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number; stillGoes?: () => boolean },
  ): Promise<CallToolResult>;
}

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What a caller throws when it did not send a call because `stillGoes` said no after a wait of
 * its own (a server's restart): the bridge refuses the call as changed, not as a host failure.
 */
export class ToolChangedError extends Error {
  override name = "ToolChangedError";
}

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

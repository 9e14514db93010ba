// One tools/call on a connected client, its host-side failures turned into WrappedServerErrors.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { WrappedServerError, abortedError, type CallOptions } from "./wrapped-server-types.js";

export interface ToolCallRequest {
  server: string;
  client: Client;
  tool: string;
  args: Record<string, unknown>;
  options: CallOptions;
  /** What is left of the call's timeout (a wait for a restart may have used some). */
  timeoutMs: number;
  /** True once the connection the call went out on has been dropped. */
  connectionGone: () => boolean;
}

export async function requestToolCall(request: ToolCallRequest): Promise<CallToolResult> {
  const { server, client, tool, options } = request;
  // A per-call signal: the SDK never removes its abort listener, and a run's one signal
  // is shared by up to hundreds of calls. Ours is dropped with the call.
  const perCall = new AbortController();
  const forwardAbort = (): void => perCall.abort(options.signal.reason);
  options.signal.addEventListener("abort", forwardAbort, { once: true });
  try {
    const result = await client.request(
      { method: "tools/call", params: { name: tool, arguments: request.args } },
      CallToolResultSchema,
      { signal: perCall.signal, timeout: request.timeoutMs },
    );
    return result;
  } catch (error) {
    if (options.signal.aborted) throw abortedError(server, tool, options.signal.reason);
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      throw new WrappedServerError(
        "timeout",
        server,
        `Tool "${tool}" of server "${server}" did not answer within ${options.timeoutMs} ms`,
        { cause: error },
      );
    }
    const closed =
      error instanceof McpError
        ? error.code === (ErrorCode.ConnectionClosed as number)
        : // The SDK says "Not connected" when the transport went away under the call.
          request.connectionGone();
    if (closed) {
      throw new WrappedServerError(
        "connection-closed",
        server,
        `Server "${server}" closed the connection during the call to "${tool}"`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    options.signal.removeEventListener("abort", forwardAbort);
  }
}

// A start that fails because the server went away before answering says so in words, not as
// the SDK's "MCP error -32000: Connection closed"; other errors keep their own text.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { STOPPED_BEFORE_ANSWERING, startFailureText } from "./wrapped-server-types.js";

describe("startFailureText", () => {
  it("says a server that closed the connection stopped before answering", () => {
    const closed = new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    expect(closed.message).toBe("MCP error -32000: Connection closed");
    expect(startFailureText(closed)).toBe(STOPPED_BEFORE_ANSWERING);
  });

  it("keeps the text of other errors, a cancelled request among them", () => {
    const cancelled = new McpError(ErrorCode.ConnectionClosed, "Request was cancelled");
    expect(startFailureText(cancelled)).toBe(cancelled.message);
    const timeout = new McpError(ErrorCode.RequestTimeout, "Request timed out");
    expect(startFailureText(timeout)).toBe(timeout.message);
    expect(startFailureText(new Error("spawn npx ENOENT"))).toBe("spawn npx ENOENT");
  });
});

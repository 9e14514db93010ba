// A start that fails because the server went away before answering says so in words, not as
// the SDK's "MCP error -32000: Connection closed"; other errors keep their own text.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  STOPPED_BEFORE_ANSWERING,
  startFailureText,
  SERVER_START_TIMEOUT_MS,
} from "./wrapped-server-types.js";
import { INPUT_UNREAD_MAX_BYTES } from "./server-connection.js";
import { STOP_STDIN_GRACE_MS, STOP_TERM_GRACE_MS } from "./process-tree.js";

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

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({
      SERVER_START_TIMEOUT_MS,
      INPUT_UNREAD_MAX_BYTES,
      STOP_STDIN_GRACE_MS,
      STOP_TERM_GRACE_MS,
    }).toEqual({
      SERVER_START_TIMEOUT_MS: 60_000,
      INPUT_UNREAD_MAX_BYTES: 16 * 1024 * 1024,
      STOP_STDIN_GRACE_MS: 2_000,
      STOP_TERM_GRACE_MS: 2_000,
    });
  });
});

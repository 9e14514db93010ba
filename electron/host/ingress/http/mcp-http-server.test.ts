import { describe, expect, it } from "vitest";
import { HTTP_BODY_MAX_BYTES, HTTP_SESSION_IDLE_MS, HTTP_SESSIONS_MAX } from "./mcp-http-server.js";

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ HTTP_SESSIONS_MAX, HTTP_SESSION_IDLE_MS, HTTP_BODY_MAX_BYTES }).toEqual({
      HTTP_SESSIONS_MAX: 100,
      HTTP_SESSION_IDLE_MS: 30 * 60_000,
      HTTP_BODY_MAX_BYTES: 4 * 1024 * 1024,
    });
  });
});

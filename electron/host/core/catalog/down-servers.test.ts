import { describe, expect, it } from "vitest";
import type { ServerState } from "../ports/server-state.js";
import {
  downReason,
  downServers,
  type ServerFacts,
  DOWN_REASON_MAX_CHARS,
} from "./down-servers.js";

function facts(
  name: string,
  info: Partial<ServerState>,
  extra: Partial<ServerFacts> = {},
): ServerFacts {
  return {
    name,
    info: {
      status: "failed",
      lastError: null,
      restarting: false,
      nextRestartAt: null,
      restartCount: 0,
      ...info,
    },
    toolCount: 0,
    ...extra,
  };
}

const START_ERROR =
  'Server "memory" failed to start: MCP error -32000: Connection closed\nLast lines of stderr:\n  starting\n  npx: not found\n   ';

describe("downReason", () => {
  it("is the start error without the server's own name, with the last line it printed", () => {
    const reason = downReason(facts("memory", { lastError: START_ERROR }), []);
    expect(reason).toBe(
      "failed to start: MCP error -32000: Connection closed; its last output: npx: not found",
    );
  });

  it("masks secrets before cutting, and keeps to one line of at most the cap", () => {
    const secret = "sk-live-0123456789";
    const reason = downReason(
      facts("api", {
        lastError: `Server "api" failed to start: bad key ${secret}\nLast lines of stderr:\n  key=${secret}\u2028forged line ${"x".repeat(2_000)}`,
      }),
      [secret],
    );
    expect(reason).not.toContain(secret);
    expect(reason).toContain("bad key [secret]");
    expect(reason).not.toMatch(/[\n\r\u2028]/);
    expect(Array.from(reason).length).toBeLessThanOrEqual(DOWN_REASON_MAX_CHARS);
  });

  it("keeps the reason of a failed server while it is started again", () => {
    const failed = facts("memory", { lastError: START_ERROR });
    const again = facts("memory", { status: "starting", lastError: START_ERROR });
    expect(downReason(again, [])).toBe(downReason(failed, []));
    expect(downServers([again], [], true)[0]?.firstStart).toBe(false);
  });

  it("says a server is still starting, or was never started", () => {
    expect(downReason(facts("a", { status: "starting" }), [])).toBe(
      "still starting; try again shortly",
    );
    expect(downReason(facts("a", { status: "stopped" }), [])).toBe("not started");
  });
});

describe("downServers", () => {
  it("lists servers with no tools that are not ready, with the prefix their tools would have", () => {
    const down = downServers(
      [
        facts("ok", { status: "ready" }, { toolCount: 3 }),
        facts("empty-but-up", { status: "ready" }),
        facts("crashed-with-tools", { status: "failed", restarting: true }, { toolCount: 2 }),
        facts("my-server", { lastError: 'Server "my-server" failed to start: spawn x ENOENT' }),
        facts("1st", { status: "starting" }),
      ],
      [],
      true,
    );
    expect(down).toEqual([
      {
        server: "my-server",
        prefix: "my_server__",
        namespace: "my_server",
        reason: "failed to start: spawn x ENOENT",
        firstStart: false,
      },
      {
        server: "1st",
        prefix: "_1st__",
        namespace: "_1st",
        reason: "still starting; try again shortly",
        firstStart: true,
      },
    ]);
  });

  it("gives no prefix when tool names carry no server", () => {
    expect(downServers([facts("solo", {})], [], false)).toEqual([
      { server: "solo", prefix: null, namespace: null, reason: "not started", firstStart: false },
    ]);
  });
});

// The Audit page's words for entries the host writes when it protects itself: each kind has a
// label of its own, and its summary says what happened in plain words.
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { describe, expect, it } from "vitest";
import { AUDIT_KINDS } from "../../../shared/audit-entry.ts";
import { kindLabel, summaryOf, targetOf } from "./audit.ts";

const common = { seq: 7, ts: "2026-12-04T19:00:00.000Z", prev: "0".repeat(64) };

describe("audit labels", () => {
  it("labels every kind in words, not its key", () => {
    for (const kind of AUDIT_KINDS) expect(kindLabel(kind)).not.toBe(kind);
  });

  it("says which client was cut off, how much it left unread, and the limit", () => {
    const entry = {
      ...common,
      kind: "client_cut_off",
      transport: "socket",
      client: "hoarder",
      connectionId: "c1",
      unreadBytes: 17 * 1024 * 1024,
      limitBytes: 16 * 1024 * 1024,
      notLogged: 3,
    };
    expect(kindLabel("client_cut_off")).toBe("Client cut off");
    expect(summaryOf(entry)).toBe(
      "hoarder (local socket) left 17.8 MB of answers unread, over the 16.8 MB allowed: disconnected (and 3 more before, not logged one by one)",
    );
  });

  it("does not give the unread figure when it rounds to the limit's", () => {
    // As logged by a real cut-off: a few hundred bytes past the limit.
    const entry = {
      ...common,
      kind: "client_cut_off",
      transport: "socket",
      client: "hoarder",
      connectionId: "c1",
      unreadBytes: 16 * 1024 * 1024 + 198,
      limitBytes: 16 * 1024 * 1024,
    };
    expect(summaryOf(entry)).toBe(
      "hoarder (local socket) left more than the 16.8 MB of unread answers allowed: disconnected",
    );
  });

  it("says when a loopback server's connections are full, and when they are free again", () => {
    const cap = { ...common, server: "mcp_http", max: 1024 };
    expect(kindLabel("connections_capped")).toBe("Connections full");
    expect(summaryOf({ ...cap, kind: "connections_capped", refused: 1 })).toBe(
      "MCP over HTTP is at its limit of 1024 open connections: new ones are refused until some close",
    );
    expect(kindLabel("connections_uncapped")).toBe("Connections free again");
    expect(
      summaryOf({ ...cap, kind: "connections_uncapped", refused: 500, durationMs: 2_000 }),
    ).toMatch(
      /^MCP over HTTP takes connections again after .+ at its limit of 1024: 500 connections refused meanwhile$/,
    );
  });
  it("counts the cut-offs left out of the log", () => {
    expect(kindLabel("cut_offs_not_logged")).toBe("Cut-offs counted");
    expect(summaryOf({ ...common, kind: "cut_offs_not_logged", count: 4 })).toBe(
      "4 clients cut off for leaving answers unread, not logged one by one (too many this minute)",
    );
  });
  it("counts the refusals left out of the log", () => {
    expect(kindLabel("auth_refusals_not_logged")).toBe("Refusals counted");
    expect(
      summaryOf({
        ...common,
        kind: "auth_refusals_not_logged",
        count: 9970,
        transports: ["socket", "http"],
      }),
    ).toBe("9970 connections refused (socket, http), not logged one by one (too many this minute)");
  });
});

describe("Try it entries", () => {
  const started = {
    ...common,
    kind: "try_started",
    tryId: "t1",
    by: "browser",
    source: "entry",
    server: "shell",
    command: "/bin/sh",
    args: JSON.stringify(["-c", "id; sleep 777 & exec cat"]),
    env: "{}",
  };

  it("says who tried what command, its arguments quoted where they hold a space", () => {
    expect(kindLabel("try_started")).toBe("Server tried");
    expect(targetOf(started)).toBe("shell");
    expect(summaryOf(started)).toBe(
      'Started in the browser: /bin/sh -c "id; sleep 777 & exec cat"',
    );
    expect(summaryOf({ ...started, by: "app", source: "bundle", args: "[]" })).toBe(
      "Started in the app from an .mcpb file: /bin/sh",
    );
  });

  it("shows arguments cut to fit the log as they were logged", () => {
    expect(summaryOf({ ...started, args: '["-c","id; sleep 7…' })).toBe(
      'Started in the browser: /bin/sh ["-c","id; sleep 7…',
    );
  });

  it("says how a try ended", () => {
    const finished = {
      ...common,
      kind: "try_finished",
      tryId: "t1",
      by: "browser",
      server: "files",
      ok: true,
      toolCount: 14,
      error: null,
      durationMs: 1_800,
    };
    expect(kindLabel("try_finished")).toBe("Try finished");
    expect(summaryOf(finished)).toMatch(/^Started and listed 14 tools in .+, then stopped$/);
    expect(
      summaryOf({
        ...finished,
        ok: false,
        toolCount: null,
        error: 'Server "files" failed to start: MCP error -32601: Method not found\nmore',
      }),
    ).toBe("Did not start: MCP error -32601: Method not found");
  });

  it("says a run the check ended had its mistakes caught before it ran, and the first one", () => {
    const finished = {
      ...common,
      kind: "run_finished",
      runId: "r1",
      client: "claude",
      durationMs: 12,
      calls: 0,
      exitCode: 1,
      stopped: "check",
      timedOut: false,
      truncated: false,
      error: "ToolCheckError: the code was checked before it ran ...\nline 3, column 7: ...",
      errorType: "ToolCheckError",
      errorMessage: "line 3, column 7: shop has no tool 'add_itme'. Did you mean: shop.add_item?",
      stdoutBytes: 0,
      stderrBytes: 0,
    };
    expect(summaryOf(finished)).toMatch(
      /^Mistakes caught before running in .+ · no calls · ToolCheckError: line 3, column 7: shop has no tool 'add_itme'/,
    );
  });
});

// `codemode ui open`'s request for a link, against a real listener on a real socket.
import { afterEach, describe, expect, it } from "vitest";
import { LocalSocketListener, NO_UI_LINK } from "../ingress/local-access/socket-listener.js";
import type { ListenOptions, Refusal } from "../ingress/local-access/socket-listener.js";
import { authenticate, collect } from "../../../test-support/local-access.js";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";
import { isUiLink, requestUiLink } from "./ui-link-request.js";

const listeners: LocalSocketListener[] = [];

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  removeTempDirs();
});

const LINK = `http://127.0.0.1:4321/#ticket=${"ab".repeat(32)}`;

async function listen(dataDir: string, extra: Partial<ListenOptions> = {}) {
  const listener = new LocalSocketListener();
  listeners.push(listener);
  const mcp: string[] = [];
  const refused: Refusal[] = [];
  await listener.listen({
    dataDir,
    env: {},
    onConnection: (socket) => {
      mcp.push("connected");
      socket.destroy();
    },
    onRefused: (refusal) => refused.push(refusal),
    ...extra,
  });
  return { socketPath: listener.socketPath!, mcp, refused };
}

describe("requestUiLink", () => {
  it("gets a new link from the host after the handshake, and nothing reaches MCP", async () => {
    const dataDir = tempDir("cm-uilink-");
    let asked = 0;
    const started = await listen(dataDir, { uiLink: () => (asked++, LINK) });
    expect(await requestUiLink(dataDir, {})).toEqual({ kind: "link", url: LINK });
    expect(await requestUiLink(dataDir, {})).toEqual({ kind: "link", url: LINK });
    expect(asked).toBe(2);
    expect(started.mcp).toEqual([]);
    expect(started.refused).toEqual([]);
  });

  it("gives no link to a client that cannot prove the token", async () => {
    const dataDir = tempDir("cm-uilink-");
    let asked = 0;
    const started = await listen(dataDir, { uiLink: () => (asked++, LINK) });
    const { socket, reply } = await authenticate(started.socketPath, "0".repeat(64), "", "ui-link");
    expect(reply).toEqual({ kind: "line", line: "ERR bad token" });
    expect((await collect(socket)).toString()).toBe("");
    expect(asked).toBe(0);
    expect(started.refused.map((r) => r.reason)).toEqual(["bad-token"]);
  });

  it("says so where the host serves no browser UI, or nothing runs", async () => {
    const dataDir = tempDir("cm-uilink-");
    await listen(dataDir);
    expect(await requestUiLink(dataDir, {})).toEqual({ kind: "failed", message: NO_UI_LINK });
    expect(await requestUiLink(tempDir("cm-uilink-none-"), {})).toEqual({ kind: "not-running" });
  });

  it("hands nothing but a loopback link with a hex ticket to a browser opener", async () => {
    const dataDir = tempDir("cm-uilink-");
    await listen(dataDir, { uiLink: () => `${LINK}&calc.exe` });
    expect(await requestUiLink(dataDir, {})).toMatchObject({ kind: "failed" });
    expect(isUiLink(LINK)).toBe(true);
    for (const bad of [
      `http://127.0.0.1:4321/#token=${"ab".repeat(32)}`,
      `http://evil.example:4321/#ticket=${"ab".repeat(32)}`,
      `http://127.0.0.1:4321/#ticket=${"ab".repeat(31)}`,
      `http://127.0.0.1:4321/x#ticket=${"ab".repeat(32)}`,
      `${LINK}"`,
    ]) {
      expect(isUiLink(bad), bad).toBe(false);
    }
  });
});

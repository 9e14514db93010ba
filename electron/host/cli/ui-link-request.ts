// Asks the running Code Mode for a new one-time link to its browser UI, over the local socket:
// only a client that proves it holds the install's token (the 0600 token file) gets one, and
// it gives the token to nothing that has not proved the same first (handshake.ts).
import net from "node:net";
import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";
import { readLine } from "../ingress/local-access/handshake.js";
import { HANDSHAKE } from "../ingress/local-access/local-access-constants.js";
import { socketLocationFor } from "../ingress/local-access/socket-path.js";
import { attempt } from "../shim/shim.js";

/** The host's answer line: `LINK <url>` or `ERR <reason>`, the URL under 100 characters. */
const UI_LINK_REPLY_MAX_BYTES = 1024;

/**
 * The only shape a link may have before it is handed to a browser opener: loopback, a port,
 * the root, a ticket of hex. Nothing in it can mean more to a shell or to `cmd /c start`.
 */
const UI_LINK = /^http:\/\/127\.0\.0\.1:\d{1,5}\/#ticket=[0-9a-f]{64}$/;

export function isUiLink(text: string): boolean {
  return text.length <= 100 && UI_LINK.test(text);
}

export type UiLinkAnswer =
  | { kind: "link"; url: string }
  /** Nothing answers on the socket: Code Mode is not running with this data directory. */
  | { kind: "not-running" }
  | { kind: "failed"; message: string };

export async function requestUiLink(
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<UiLinkAnswer> {
  const location = socketLocationFor(dataDir, env);
  const result = await attempt(
    dataDir,
    location,
    (target) => net.createConnection(target),
    "ui-link",
  );
  if (result.kind === "absent") return { kind: "not-running" };
  if (result.kind === "failed") return { kind: "failed", message: result.message };
  const socket = result.socket;
  try {
    const reply = await readLine(
      socket,
      UI_LINK_REPLY_MAX_BYTES,
      LOCAL_ACCESS_LIMITS.handshakeTimeoutMs,
    );
    if (reply.kind !== "line") {
      return { kind: "failed", message: `Code Mode did not send a link (${reply.kind})` };
    }
    const line = reply.line.endsWith("\r") ? reply.line.slice(0, -1) : reply.line;
    if (line.startsWith(`${HANDSHAKE.link} `)) {
      const url = line.slice(HANDSHAKE.link.length + 1);
      if (isUiLink(url)) return { kind: "link", url };
      return { kind: "failed", message: "Code Mode sent a link of an unexpected shape" };
    }
    if (line.startsWith(`${HANDSHAKE.err} `)) {
      return { kind: "failed", message: line.slice(HANDSHAKE.err.length + 1) };
    }
    return { kind: "failed", message: "Code Mode sent an unexpected answer" };
  } finally {
    socket.destroy();
  }
}

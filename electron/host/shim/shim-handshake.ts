// The shim's side of the local-access handshake (local-access/handshake.ts holds the lines).

import type net from "node:net";
import {
  helloLine,
  newNonce,
  parseHostReply,
  proof,
  proofValid,
  readLine,
  shimProofLine,
  type HelloPurpose,
  type LineResult,
} from "../ingress/local-access/handshake.js";
import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";

/** Each handshake line the shim reads (the host's PROOF, `OK` or `ERR <reason>`). */
export const HANDSHAKE_REPLY_MAX_BYTES = 200;

export type Challenge =
  | { kind: "connected" }
  /** transient: the other side went away or stalled mid-handshake (a dying app can). */
  | { kind: "failed"; message: (at: string) => string; transient?: boolean };

/**
 * The shim's side of the challenge-response (handshake.ts): the host must prove it knows the
 * token before the shim proves it does; the token itself is never sent.
 */
export async function challenge(
  socket: net.Socket,
  token: string,
  purpose: HelloPurpose = "mcp",
): Promise<Challenge> {
  const deadline = Date.now() + LOCAL_ACCESS_LIMITS.handshakeTimeoutMs;
  const next = (): Promise<LineResult> =>
    readLine(socket, HANDSHAKE_REPLY_MAX_BYTES, Math.max(0, deadline - Date.now()));
  const failed = (message: (at: string) => string): Challenge => ({ kind: "failed", message });

  const shimNonce = newNonce();
  socket.write(helloLine(shimNonce, purpose));
  const first = await next();
  if (first.kind !== "line") return broken(first);
  const reply = parseHostReply(first.line);
  if (reply.kind === "err") {
    return failed(
      () =>
        `Code Mode refused the connection: ${reply.reason}` +
        (reply.reason === "malformed handshake"
          ? " (the running Code Mode is older than this shim: quit it and start it again)"
          : ""),
    );
  }
  if (reply.kind !== "proof") return failed((at) => `unexpected handshake answer from ${at}`);
  if (!proofValid(reply.hostProof, "host", token, shimNonce, reply.hostNonce)) {
    return failed(
      (at) =>
        `refusing ${at}: whatever listens there could not prove it knows this install's token, so it is not Code Mode ` +
        `(or it is Code Mode with another data directory, or one started before the token file changed). Nothing was sent to it. Quit Code Mode, remove ${at}, and start Code Mode again.`,
    );
  }
  socket.write(shimProofLine(proof("shim", token, shimNonce, reply.hostNonce)));
  const second = await next();
  if (second.kind !== "line") return broken(second);
  const answer = parseHostReply(second.line);
  if (answer.kind === "ok") return { kind: "connected" };
  if (answer.kind === "err") {
    return failed(() => `Code Mode refused the connection: ${answer.reason}`);
  }
  return failed((at) => `unexpected handshake answer from ${at}`);
}

function broken(result: Exclude<LineResult, { kind: "line" }>): Challenge {
  return {
    kind: "failed",
    message: brokenHandshake(result),
    transient: result.kind !== "too-long",
  };
}

function brokenHandshake(result: Exclude<LineResult, { kind: "line" }>): (at: string) => string {
  const why =
    result.kind === "timeout"
      ? `did not answer the handshake within ${LOCAL_ACCESS_LIMITS.handshakeTimeoutMs / 1000} s`
      : result.kind === "error"
        ? `failed during the handshake: ${result.error.message}`
        : result.kind === "end"
          ? "closed the connection during the handshake"
          : "sent an over-long handshake answer";
  return (at) => `Code Mode at ${at} ${why}`;
}

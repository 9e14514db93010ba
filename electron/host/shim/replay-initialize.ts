// Reconnecting to a new app: the client's `initialize` is sent again and its answer read and
// kept back (the client already had one). Kept apart from shim-session.ts, which owns the
// session's state; this is one exchange on one socket.

import type net from "node:net";
import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";
import { isId, key, parseObject, type Id } from "./in-flight.js";

export type ReplayInitializeResult =
  { kind: "ok"; rest: Buffer } | { kind: "gone" } | { kind: "refused"; message: string };

/**
 * Sends the remembered `initialize` and reads up to its answer, which is kept back. `rest` is
 * what came after the answer; the socket is left paused so nothing more is lost.
 */
export function replayInitialize(
  socket: net.Socket,
  init: { line: string; id: Id },
  waitMs: number,
): Promise<ReplayInitializeResult> {
  return new Promise<ReplayInitializeResult>((resolve) => {
    let buffered: Buffer = Buffer.alloc(0);
    const done = (result: ReplayInitializeResult): void => {
      clearTimeout(timer);
      // Held until attach() listens: what follows the answer is the client's.
      socket.pause();
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("end", onClose);
      resolve(result);
    };
    const onClose = (): void => done({ kind: "gone" });
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf(0x0a);
        if (end === -1) break;
        const line = buffered.subarray(0, end).toString("utf8");
        buffered = buffered.subarray(end + 1);
        const message = parseObject(line);
        // Anything before the answer (a log line) was meant for a client that had not
        // initialised yet: ours has, so it is dropped.
        if (message === undefined || "method" in message || !isId(message.id)) continue;
        if (key(message.id) !== key(init.id)) continue;
        if ("error" in message) {
          done({
            kind: "refused",
            message: `Code Mode came back but refused the client's initialize again: ${JSON.stringify(message.error).slice(0, 500)}`,
          });
        } else {
          done({ kind: "ok", rest: buffered });
        }
        return;
      }
      if (buffered.length > LOCAL_ACCESS_LIMITS.shimTrackedLineMaxBytes) done({ kind: "gone" });
    };
    const timer = setTimeout(() => done({ kind: "gone" }), waitMs);
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.once("end", onClose);
    socket.on("error", () => undefined);
    socket.write(init.line + "\n");
  });
}

// Reconnecting to a new app: the client's `initialize` is sent again and its answer read and
// kept back (the client already had one). Kept apart from shim-session.ts, which owns the
// session's state; this is one exchange on one socket.

import type net from "node:net";
import { isId, key, parseObject, type Id, SHIM_TRACKED_LINE_MAX_BYTES } from "./in-flight.js";
import { LineFramer } from "../util/line-framer.js";

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
    /** Set once a line settles it; "answered": the rest of that chunk is the client's. */
    let result: Exclude<ReplayInitializeResult, { kind: "ok" }> | "answered" | null = null;
    const done = (outcome: ReplayInitializeResult): void => {
      clearTimeout(timer);
      // Held until attach() listens: what follows the answer is the client's.
      socket.pause();
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("end", onClose);
      resolve(outcome);
    };
    const lines = new LineFramer({
      maxLineBytes: SHIM_TRACKED_LINE_MAX_BYTES,
      overLong: "stop",
      onOverLong: () => (result = { kind: "gone" }),
      onLine: (line) => {
        const message = parseObject(line.toString("utf8"));
        // Anything before the answer (a log line) was meant for a client that had not
        // initialised yet: ours has, so it is dropped.
        if (message === undefined || "method" in message || !isId(message.id)) return;
        if (key(message.id) !== key(init.id)) return;
        result =
          "error" in message
            ? {
                kind: "refused",
                message: `Code Mode came back but refused the client's initialize again: ${JSON.stringify(message.error).slice(0, 500)}`,
              }
            : "answered";
        lines.stop();
      },
    });
    const onClose = (): void => done({ kind: "gone" });
    const onData = (chunk: Buffer): void => {
      const taken = lines.push(chunk);
      if (result === "answered") done({ kind: "ok", rest: chunk.subarray(taken) });
      else if (result !== null) done(result);
    };
    const timer = setTimeout(() => done({ kind: "gone" }), waitMs);
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.once("end", onClose);
    socket.on("error", () => undefined);
    socket.write(init.line + "\n");
  });
}

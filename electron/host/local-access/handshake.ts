import type { Readable } from "node:stream";
import { HANDSHAKE } from "./local-access-constants.js";
import { isToken } from "./token.js";

export type LineResult =
  | { kind: "line"; line: string }
  | { kind: "too-long" }
  | { kind: "timeout" }
  /** The stream ended (or closed) before a newline; `partial` is what came. */
  | { kind: "end"; partial: string }
  | { kind: "error"; error: Error };

/**
 * Reads one `\n`-terminated line of at most maxBytes (newline included) and leaves every
 * byte after it in the stream, unshifted, for whoever reads next. It reads with 'readable'
 * rather than 'data' so that, once its listener is gone, the stream is neither paused nor
 * flowing: the next consumer's `on("data")` or `pipe()` starts it as usual.
 */
export function readLine(
  stream: Readable,
  maxBytes: number,
  timeoutMs: number | undefined,
): Promise<LineResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;

    const finish = (result: LineResult, rest?: Buffer): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      stream.off("readable", onReadable);
      stream.off("end", onEnd);
      stream.off("close", onEnd);
      stream.off("error", onError);
      if (rest !== undefined && rest.length > 0) stream.unshift(rest);
      resolve(result);
    };
    const onReadable = (): void => {
      while (!done) {
        const chunk = stream.read() as Buffer | string | null;
        if (chunk === null) return;
        const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
        const newline = bytes.indexOf(0x0a);
        const used = newline === -1 ? bytes.length : newline + 1;
        if (size + used > maxBytes) {
          finish({ kind: "too-long" });
          return;
        }
        if (newline === -1) {
          chunks.push(bytes);
          size += bytes.length;
          continue;
        }
        chunks.push(bytes.subarray(0, newline));
        finish(
          { kind: "line", line: Buffer.concat(chunks).toString("utf8") },
          bytes.subarray(newline + 1),
        );
      }
    };
    const onEnd = (): void =>
      finish({ kind: "end", partial: Buffer.concat(chunks).toString("utf8") });
    const onError = (error: Error): void => finish({ kind: "error", error });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => finish({ kind: "timeout" }), timeoutMs);

    if (stream.readableEnded || stream.destroyed) {
      finish({ kind: "end", partial: "" });
      return;
    }
    stream.on("error", onError);
    stream.on("end", onEnd);
    stream.on("close", onEnd);
    stream.on("readable", onReadable);
  });
}

export function helloLine(token: string): string {
  return `${HANDSHAKE.hello} ${token}\n`;
}

/** The token of a `CODEMODE <token>` line, or undefined if the line is not one. */
export function parseHello(line: string): string | undefined {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  const prefix = HANDSHAKE.hello + " ";
  if (!text.startsWith(prefix)) return undefined;
  const token = text.slice(prefix.length);
  return isToken(token) ? token : undefined;
}

export type Reply = { kind: "ok" } | { kind: "err"; reason: string } | { kind: "other" };

export function parseReply(line: string): Reply {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text === HANDSHAKE.ok) return { kind: "ok" };
  if (text === HANDSHAKE.err || text.startsWith(HANDSHAKE.err + " ")) {
    return { kind: "err", reason: text.slice(HANDSHAKE.err.length + 1) || "refused" };
  }
  return { kind: "other" };
}

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import { HANDSHAKE } from "./local-access-constants.js";
import { LineFramer } from "../../util/line-framer.js";

/** Random bytes of each side's challenge-response nonce (written as hex). */
export const HANDSHAKE_NONCE_BYTES = 32;

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
    let line: string | null = null;
    let tooLong = false;
    let done = false;
    // The cap counts the newline: a line of maxBytes bytes is one too many once it ends.
    const lines = new LineFramer({
      maxLineBytes: maxBytes,
      overLong: "stop",
      onLine: (bytes) => {
        if (bytes.length + 1 > maxBytes) tooLong = true;
        else line = bytes.toString("utf8");
        lines.stop();
      },
      onOverLong: () => (tooLong = true),
    });

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
        const taken = lines.push(bytes);
        if (tooLong) finish({ kind: "too-long" });
        else if (line !== null) finish({ kind: "line", line }, bytes.subarray(taken));
      }
    };
    const onEnd = (): void =>
      finish({ kind: "end", partial: lines.partial()?.toString("utf8") ?? "" });
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

// The challenge-response. Each side sends a fresh random nonce and proves it knows the
// install's token with an HMAC over both nonces, the host first. The token never crosses the
// socket, so a listener planted where the shim connects learns nothing it can use, and the
// shim refuses it; a proof is bound to both nonces, so none can be replayed or reflected.
//
//   shim -> host   CODEMODE/2 HELLO <shim nonce> [UI-LINK]
//   host -> shim   CODEMODE/2 PROOF <host nonce> <host proof>   (or ERR <reason>)
//   shim -> host   CODEMODE/2 PROOF <shim proof>
//   host -> shim   OK                                           (or ERR <reason>)
//
// Then MCP. A hello that ends in UI-LINK asks instead for a new link to the browser UI: the
// host sends `LINK <url>` (or `ERR <reason>`) and closes (`codemode ui open`).

const NONCE_HEX_CHARS = HANDSHAKE_NONCE_BYTES * 2;
const PROOF_HEX_CHARS = 64;

/** Fixed-length lowercase hex, checked without a regular expression. */
function isHex(text: string, length: number): boolean {
  if (text.length !== length) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

export function newNonce(): string {
  return randomBytes(HANDSHAKE_NONCE_BYTES).toString("hex");
}

/** The proof that `role` knows `token`, for this pair of nonces. */
export function proof(
  role: "host" | "shim",
  token: string,
  shimNonce: string,
  hostNonce: string,
): string {
  // The role is part of what is signed: a host's proof is never a valid shim proof.
  return createHmac("sha256", token)
    .update(`${HANDSHAKE.version} ${role}\n${shimNonce}\n${hostNonce}`)
    .digest("hex");
}

/** Whether `presented` is `role`'s proof for these nonces, compared in constant time. */
export function proofValid(
  presented: string,
  role: "host" | "shim",
  token: string,
  shimNonce: string,
  hostNonce: string,
): boolean {
  if (!isHex(presented, PROOF_HEX_CHARS)) return false;
  const expected = Buffer.from(proof(role, token, shimNonce, hostNonce), "hex");
  return timingSafeEqual(Buffer.from(presented, "hex"), expected);
}

/** What a client connects for: MCP (the shim), or one new link to the browser UI. */
export type HelloPurpose = "mcp" | "ui-link";

export function helloLine(shimNonce: string, purpose: HelloPurpose = "mcp"): string {
  const tail = purpose === "ui-link" ? ` ${HANDSHAKE.uiLink}` : "";
  return `${HANDSHAKE.version} ${HANDSHAKE.hello} ${shimNonce}${tail}\n`;
}

export function hostProofLine(hostNonce: string, hostProof: string): string {
  return `${HANDSHAKE.version} ${HANDSHAKE.proof} ${hostNonce} ${hostProof}\n`;
}

export function shimProofLine(shimProof: string): string {
  return `${HANDSHAKE.version} ${HANDSHAKE.proof} ${shimProof}\n`;
}

export type Hello =
  | { kind: "hello"; shimNonce: string; purpose: HelloPurpose }
  /** `CODEMODE <token>`: a shim from before the challenge-response, sending its token. */
  | { kind: "outdated" }
  | { kind: "malformed" };

export function parseHello(line: string): Hello {
  const parts = withoutCr(line).split(" ");
  const purpose: HelloPurpose | undefined =
    parts.length === 3
      ? "mcp"
      : parts.length === 4 && parts[3] === HANDSHAKE.uiLink
        ? "ui-link"
        : undefined;
  if (purpose && parts[0] === HANDSHAKE.version && parts[1] === HANDSHAKE.hello) {
    const nonce = parts[2] ?? "";
    if (isHex(nonce, NONCE_HEX_CHARS)) return { kind: "hello", shimNonce: nonce, purpose };
  }
  if (parts.length === 2 && parts[0] === HANDSHAKE.legacyHello) return { kind: "outdated" };
  return { kind: "malformed" };
}

/** The shim's proof from its second line, or undefined if the line is not one. */
export function parseShimProof(line: string): string | undefined {
  const parts = withoutCr(line).split(" ");
  if (parts.length !== 3 || parts[0] !== HANDSHAKE.version || parts[1] !== HANDSHAKE.proof) {
    return undefined;
  }
  return parts[2];
}

export type HostReply =
  | { kind: "proof"; hostNonce: string; hostProof: string }
  | { kind: "ok" }
  | { kind: "err"; reason: string }
  | { kind: "other" };

/** Any line the host may send during the handshake. */
export function parseHostReply(line: string): HostReply {
  const text = withoutCr(line);
  if (text === HANDSHAKE.ok) return { kind: "ok" };
  if (text === HANDSHAKE.err || text.startsWith(HANDSHAKE.err + " ")) {
    return { kind: "err", reason: text.slice(HANDSHAKE.err.length + 1) || "refused" };
  }
  const parts = text.split(" ");
  if (parts.length === 4 && parts[0] === HANDSHAKE.version && parts[1] === HANDSHAKE.proof) {
    const [, , hostNonce = "", hostProof = ""] = parts;
    if (isHex(hostNonce, NONCE_HEX_CHARS)) return { kind: "proof", hostNonce, hostProof };
  }
  return { kind: "other" };
}

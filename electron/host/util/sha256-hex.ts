import crypto from "node:crypto";

// The one-shot form costs about half as much per line as a Hash object (Node 20.12 and later).
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array | string) => string })
  .hash;

/** The SHA-256 of `bytes` (a string is hashed as UTF-8), as 64 lowercase hex digits. */
export function sha256Hex(bytes: Uint8Array | string): string {
  if (oneShot !== undefined) return oneShot("sha256", bytes);
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

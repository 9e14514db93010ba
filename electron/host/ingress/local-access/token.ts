import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { lstat, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { LOCAL_ACCESS_LIMITS, LOCAL_ACCESS_MODES } from "../../../../shared/limits.js";
import { LOCAL_ACCESS_NAMES } from "./local-access-constants.js";
import { octal } from "./socket-path.js";
import { createOnce } from "../../util/create-once.js";

/** Random bytes in the install's token (written as hex). */
export const TOKEN_BYTES = 32;

/** Tries to make the token file when another start's attempt keeps making and removing it. */
const TOKEN_CREATE_ATTEMPTS = 5;

const TOKEN_PATTERN = new RegExp(`^[0-9a-f]{${TOKEN_BYTES * 2}}$`);

/** The token file is missing, unsafe or damaged; the message says how to fix it. */
export class TokenError extends Error {
  override name = "TokenError";
  constructor(
    message: string,
    readonly code: "missing" | "unsafe" | "malformed",
  ) {
    super(message);
  }
}

export function tokenPath(dataDir: string): string {
  return path.join(dataDir, LOCAL_ACCESS_NAMES.tokenFile);
}

export function isToken(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

/**
 * Reads the install's token. Refuses a file other users could read or write, because then
 * anyone on the machine could talk to the host as the user.
 */
export async function readToken(
  dataDir: string,
  platform: NodeJS.Platform = process.platform,
): Promise<string> {
  const file = tokenPath(dataDir);
  const deadline = Date.now() + LOCAL_ACCESS_LIMITS.emptyFileSettleMs;
  for (;;) {
    let text: string;
    try {
      await checkTokenFile(file, platform);
      text = (await readFile(file, "utf8")).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new TokenError(
          `There is no token file at ${file}: Code Mode has not been started with this data directory yet.`,
          "missing",
        );
      }
      throw error;
    }
    if (isToken(text)) return text;
    // An empty file is what a concurrent first start looks like between its create and its
    // write; anything else is damage.
    if (text !== "" || Date.now() >= deadline) {
      throw new TokenError(
        `The token file ${file} is damaged. Delete it and start Code Mode again to make a new one (connected clients will reconnect with it).`,
        "malformed",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCAL_ACCESS_LIMITS.emptyFileRetryMs));
  }
}

async function checkTokenFile(file: string, platform: NodeJS.Platform): Promise<void> {
  const stat = await lstat(file);
  if (!stat.isFile()) {
    throw new TokenError(
      `${file} should be Code Mode's token file but is not a regular file. Delete it and start Code Mode again.`,
      "unsafe",
    );
  }
  if (platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new TokenError(
      `The token file ${file} can be read by other users (mode ${octal(stat.mode)}), so Code Mode will not use it. ` +
        `Fix it with: chmod 600 '${file}' (or delete it and start Code Mode again to make a new token).`,
      "unsafe",
    );
  }
}

/** Reads the token, making it on the first start. Safe against two starters at once. */
export async function ensureToken(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });
  const file = tokenPath(dataDir);
  for (let attempt = 0; attempt < TOKEN_CREATE_ATTEMPTS; attempt++) {
    const token = randomBytes(TOKEN_BYTES).toString("hex");
    // O_EXCL: of two first starts, exactly one creates the file; the other reads it.
    if (await createOnce(file, token + "\n", LOCAL_ACCESS_MODES.tokenFile)) return token;
    try {
      return await readToken(dataDir);
    } catch (error) {
      // Gone again: the start that made it failed to write it and removed it. Made here then.
      if (!(error instanceof TokenError && error.code === "missing")) throw error;
    }
  }
  throw new Error(`could not make ${file}: other processes keep changing it`);
}

/** Compares a presented token with the real one in time independent of where they differ. */
export function tokensEqual(presented: string, expected: string): boolean {
  // Hashing first gives equal-length inputs, so even the length is not leaked by timing.
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined. The scheme is
 * matched without regard to case (RFC 7235: `bearer` and `BEARER` are the same scheme).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(" ");
  if (space === -1 || header.slice(0, space).toLowerCase() !== "bearer") return undefined;
  const token = header.slice(space + 1).trim();
  return token === "" ? undefined : token;
}

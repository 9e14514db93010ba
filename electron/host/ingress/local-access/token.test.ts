import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  TokenError,
  bearerToken,
  ensureToken,
  readToken,
  tokenPath,
  tokensEqual,
  TOKEN_BYTES,
} from "./token.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";

afterEach(removeTempDirs);

describe("token", () => {
  it("is created once, as 32 random bytes in hex, in a 0600 file", async () => {
    const dataDir = tempDir("cm-la-");
    const token = await ensureToken(dataDir);
    expect(token).toMatch(new RegExp(`^[0-9a-f]{${TOKEN_BYTES * 2}}$`));
    expect((await stat(tokenPath(dataDir))).mode & 0o777).toBe(0o600);
    expect(await ensureToken(dataDir)).toBe(token);
    expect(await readToken(dataDir)).toBe(token);
    expect((await readFile(tokenPath(dataDir), "utf8")).trim()).toBe(token);
  });

  it("gives two concurrent first starts the same token", async () => {
    const dataDir = tempDir("cm-la-");
    const tokens = await Promise.all(Array.from({ length: 8 }, () => ensureToken(dataDir)));
    expect(new Set(tokens).size).toBe(1);
  });

  it("creates the data directory 0700 when it does not exist yet", async () => {
    const parent = tempDir("cm-la-");
    const dataDir = `${parent}/fresh`;
    await ensureToken(dataDir);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  });

  it("refuses a world-readable token file and says how to fix it", async () => {
    const dataDir = tempDir("cm-la-");
    await ensureToken(dataDir);
    await chmod(tokenPath(dataDir), 0o644);
    const error = await readToken(dataDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).code).toBe("unsafe");
    expect((error as TokenError).message).toContain("can be read by other users (mode 0644)");
    expect((error as TokenError).message).toContain(`chmod 600 '${tokenPath(dataDir)}'`);
    await expect(ensureToken(dataDir)).rejects.toThrow(/chmod 600/);
  });

  it("refuses a group-readable token file too", async () => {
    const dataDir = tempDir("cm-la-");
    await ensureToken(dataDir);
    await chmod(tokenPath(dataDir), 0o640);
    await expect(readToken(dataDir)).rejects.toThrow(/mode 0640/);
  });

  it("says the app has not been started when there is no token file", async () => {
    const dataDir = tempDir("cm-la-");
    const error = await readToken(dataDir).catch((e: unknown) => e);
    expect((error as TokenError).code).toBe("missing");
    expect((error as TokenError).message).toMatch(/has not been started/);
  });

  it("refuses a damaged token file with advice", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(tokenPath(dataDir), "not a token\n", { mode: 0o600 });
    await expect(readToken(dataDir)).rejects.toThrow(/damaged\. Delete it/);
  });

  it("compares tokens whole, whatever their lengths", () => {
    const token = "ab".repeat(32);
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(token.slice(0, -1) + "c", token)).toBe(false);
    expect(tokensEqual(token.slice(0, 10), token)).toBe(false);
    expect(tokensEqual("", token)).toBe(false);
  });

  it("reads a bearer token whatever the case of the scheme, and nothing else", () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect(bearerToken(`${scheme} abc`)).toBe("abc");
    }
    expect(bearerToken("Bearer   abc  ")).toBe("abc");
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken("Bearer")).toBeUndefined();
    expect(bearerToken("Bearer ")).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("abc")).toBeUndefined();
  });
});

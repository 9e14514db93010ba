// Electron cannot start here: these run the key handling against a stand-in keychain. What is
// not verified is Electron's own safeStorage (and so the real OS keychain) doing its part.
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CHECKPOINT_KEY_FILE,
  checkpointSignerFromKeychain,
  type KeychainLike,
} from "./checkpoint-key.js";

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "codemode-ckey-"));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Encrypts by reversing bytes and prefixing a tag; decrypting anything else throws. */
function fakeKeychain(
  options: { available?: boolean; backend?: string; tag?: string } = {},
): KeychainLike {
  const tag = options.tag ?? "kc1:";
  return {
    isEncryptionAvailable: () => options.available ?? true,
    getSelectedStorageBackend: () => options.backend ?? "gnome_libsecret",
    encryptString: (plain) => Buffer.from(tag + [...plain].reverse().join("")),
    decryptString: (encrypted) => {
      const text = encrypted.toString("utf8");
      if (!text.startsWith(tag)) throw new Error("Error while decrypting the ciphertext provided");
      return [...text.slice(tag.length)].reverse().join("");
    },
  };
}

describe("checkpointSignerFromKeychain (with a stand-in for safeStorage)", () => {
  it("creates a key once, stores it only encrypted (0600), and signs the same after a restart", async () => {
    const first = await checkpointSignerFromKeychain(dataDir, fakeKeychain(), "linux");
    if (first.signer === undefined) throw new Error(first.problem);
    expect(first.keyFileExisted).toBe(false);
    const file = path.join(dataDir, CHECKPOINT_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).startsWith("kc1:")).toBe(true);
    const again = await checkpointSignerFromKeychain(dataDir, fakeKeychain(), "linux");
    expect(again.signer?.sign("x")).toBe(first.signer.sign("x"));
    expect(again.keyFileExisted).toBe(true);
    expect(first.signer.sign("x")).toMatch(/^[0-9a-f]{64}$/);
    expect(first.signer.sign("y")).not.toBe(first.signer.sign("x"));
  });

  it("signs nothing where there is no keychain, or Linux's fixed-key fallback, and says why", async () => {
    expect(
      await checkpointSignerFromKeychain(dataDir, fakeKeychain({ available: false }), "darwin"),
    ).toEqual({
      signer: undefined,
      problem: expect.stringMatching(/no OS keychain/) as unknown,
      keyFileExisted: false,
    });
    expect(
      await checkpointSignerFromKeychain(dataDir, fakeKeychain({ backend: "basic_text" }), "linux"),
    ).toEqual({
      signer: undefined,
      problem: expect.stringMatching(/no OS keyring/) as unknown,
      keyFileExisted: false,
    });
  });

  it("keeps a key another keychain cannot decrypt, rather than replacing it", async () => {
    await checkpointSignerFromKeychain(dataDir, fakeKeychain({ tag: "other:" }), "linux");
    const file = path.join(dataDir, CHECKPOINT_KEY_FILE);
    const before = await readFile(file);
    const result = await checkpointSignerFromKeychain(dataDir, fakeKeychain(), "linux");
    expect(result.signer).toBeUndefined();
    expect(result.problem).toMatch(/cannot be decrypted/);
    // Reported as a problem by the host (a marker verify fails on), not passed over.
    expect(result.keyFileExisted).toBe(true);
    expect(await readFile(file)).toEqual(before);
    await writeFile(file, fakeKeychain().encryptString("not hex"));
    expect((await checkpointSignerFromKeychain(dataDir, fakeKeychain(), "linux")).problem).toMatch(
      /is not a key/,
    );
  });
});

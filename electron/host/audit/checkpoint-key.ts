// The key that signs the audit checkpoint, kept encrypted by the OS keychain (Electron
// safeStorage) in a file of the data directory. Someone who can write the data directory can
// cut the log and rewrite the checkpoint, but cannot sign one: the key only exists decrypted
// inside the app. This file takes the keychain as a parameter so it can be tested without
// Electron (which cannot start on our CI machines).
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { hmacSigner, type CheckpointSigner } from "./audit-checkpoint.js";
import { isErrno } from "../util/errno.js";

/** The HMAC key that signs checkpoints (kept in the OS keychain). */
export const AUDIT_CHECKPOINT_KEY_BYTES = 32;

export const CHECKPOINT_KEY_FILE = "audit-checkpoint-key.bin";

/** The part of Electron's safeStorage this needs. */
export interface KeychainLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: "basic_text" means no keyring, a fixed key. */
  getSelectedStorageBackend?(): string;
}

/**
 * `keyFileExisted`: the key file was there before this start, so checkpoints were signed
 * before; a problem with it then is an attack or a broken keychain, never to be passed over.
 */
export type CheckpointKeyResult =
  | { signer: CheckpointSigner; problem: null; keyFileExisted: boolean }
  | { signer: undefined; problem: string; keyFileExisted: boolean };

/**
 * The signer, with the key read from (or, the first time, created in) `dataDir`. Undefined
 * with a reason where no keychain keeps the key safe; then checkpoints stay unsigned and
 * `codemode audit verify` says so.
 */
export async function checkpointSignerFromKeychain(
  dataDir: string,
  keychain: KeychainLike,
  platform: NodeJS.Platform = process.platform,
): Promise<CheckpointKeyResult> {
  if (!keychain.isEncryptionAvailable()) {
    return {
      signer: undefined,
      problem: "no OS keychain: audit checkpoints are not signed",
      keyFileExisted: false,
    };
  }
  // On Linux without a keyring Electron falls back to a fixed key: no protection at all.
  if (platform === "linux" && keychain.getSelectedStorageBackend?.() === "basic_text") {
    return {
      signer: undefined,
      problem: "no OS keyring: audit checkpoints are not signed",
      keyFileExisted: false,
    };
  }
  const file = path.join(dataDir, CHECKPOINT_KEY_FILE);
  let stored: Buffer | null = null;
  try {
    stored = await readFile(file);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
  if (stored !== null) {
    let hex: string;
    try {
      hex = keychain.decryptString(stored);
    } catch (error) {
      // Not overwritten: a new key would make every earlier checkpoint look forged.
      return {
        signer: undefined,
        problem: `the audit checkpoint key in ${file} cannot be decrypted by this keychain (${String(error)}): checkpoints are not signed`,
        keyFileExisted: true,
      };
    }
    const key = Buffer.from(hex, "hex");
    if (key.length !== AUDIT_CHECKPOINT_KEY_BYTES || key.toString("hex") !== hex) {
      return {
        signer: undefined,
        problem: `the audit checkpoint key in ${file} is not a key: checkpoints are not signed`,
        keyFileExisted: true,
      };
    }
    return { signer: hmacSigner(key, "OS keychain"), problem: null, keyFileExisted: true };
  }
  const key = randomBytes(AUDIT_CHECKPOINT_KEY_BYTES);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.tmp`;
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(keychain.encryptString(key.toString("hex")));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  return { signer: hmacSigner(key, "OS keychain"), problem: null, keyFileExisted: false };
}

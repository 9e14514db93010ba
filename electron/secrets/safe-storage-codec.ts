import { safeStorage } from "electron";
import type { SecretCodec } from "../host/app/index.js";

/** Secret env values encrypted with the OS keychain, when the platform offers one. */
export function safeStorageCodec(): SecretCodec | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  // On Linux without a keyring Electron falls back to a fixed key: no better than the
  // 0600 file, and it would make the file unreadable to the daemon for nothing.
  if (process.platform === "linux" && safeStorage.getSelectedStorageBackend() === "basic_text") {
    return undefined;
  }
  return {
    encrypt: (plain) => safeStorage.encryptString(plain).toString("base64"),
    decrypt: (stored) => safeStorage.decryptString(Buffer.from(stored, "base64")),
  };
}

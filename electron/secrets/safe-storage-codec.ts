import { safeStorage } from "electron";
import type { SecretCodec } from "../host/store/secret-codec.js";

/** Secret env values encrypted with the OS keychain, when the platform offers one. */
export function safeStorageCodec(): SecretCodec | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  return {
    encrypt: (plain) => safeStorage.encryptString(plain).toString("base64"),
    decrypt: (stored) => safeStorage.decryptString(Buffer.from(stored, "base64")),
  };
}

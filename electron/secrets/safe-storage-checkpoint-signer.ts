import { safeStorage } from "electron";
import { checkpointSignerFromKeychain, type CheckpointKeyResult } from "../host/app/index.js";

/** The audit checkpoint's signer with its key in the OS keychain. Call after app "ready". */
export function safeStorageCheckpointSigner(dataDir: string): Promise<CheckpointKeyResult> {
  return checkpointSignerFromKeychain(dataDir, safeStorage);
}

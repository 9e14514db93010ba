import { randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { LOCAL_ACCESS_LIMITS, LOCAL_ACCESS_MODES } from "../../../../shared/limits.js";
import { createOnce } from "../../util/create-once.js";

/** Random bytes in the install's id (written as hex), which labels its sandbox containers. */
export const INSTALL_ID_BYTES = 16;

/** The file in the data directory that holds the install's id. */
export const INSTALL_ID_FILE = "install-id";

/** Tries to make the id file when another start's attempt keeps making and removing it. */
const INSTALL_ID_CREATE_ATTEMPTS = 5;

const INSTALL_ID_PATTERN = new RegExp(`^[0-9a-f]{${INSTALL_ID_BYTES * 2}}$`);

export function isInstallId(text: string): boolean {
  return INSTALL_ID_PATTERN.test(text);
}

/**
 * The install's id, or null when it has none yet. An id made of anything else is treated
 * as damage, never trusted: it decides which containers are ours to remove. An empty file is
 * what a concurrent first start looks like between its create and its write, so it is read
 * again for a moment before it counts as damage.
 */
export async function readInstallId(dataDir: string): Promise<string | null> {
  const file = path.join(dataDir, INSTALL_ID_FILE);
  const deadline = Date.now() + LOCAL_ACCESS_LIMITS.emptyFileSettleMs;
  for (;;) {
    let text: string;
    try {
      text = (await readFile(file, "utf8")).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    if (isInstallId(text)) return text;
    if (text !== "") {
      throw new Error(
        `${file} is damaged; delete it and Code Mode makes a new one ` +
          `(containers left by a crash before then are not removed automatically).`,
      );
    }
    // An id is synced before any container is labelled with it: an empty file labels none.
    if (Date.now() >= deadline) {
      throw new Error(`${file} is empty; delete it and Code Mode makes a new one.`);
    }
    await new Promise((resolve) => setTimeout(resolve, LOCAL_ACCESS_LIMITS.emptyFileRetryMs));
  }
}

/**
 * Reads the install's random id, making it on first use. A random id rather than a hash of
 * the data directory's path: two machines (or dev containers) with the same path sharing one
 * Docker engine must not take each other's containers for their own.
 */
export async function ensureInstallId(dataDir: string): Promise<string> {
  const file = path.join(dataDir, INSTALL_ID_FILE);
  for (let attempt = 0; ; attempt++) {
    const existing = await readInstallId(dataDir);
    if (existing !== null) return existing;
    if (attempt === INSTALL_ID_CREATE_ATTEMPTS) {
      throw new Error(`could not make ${file}: other processes keep changing it`);
    }
    await mkdir(dataDir, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });
    const id = randomBytes(INSTALL_ID_BYTES).toString("hex");
    // O_EXCL: of two first starts, one writes the id and the other reads it at the loop's top
    // (or makes it after all, if the first failed and removed its file).
    if (await createOnce(file, id + "\n", LOCAL_ACCESS_MODES.tokenFile)) return id;
  }
}

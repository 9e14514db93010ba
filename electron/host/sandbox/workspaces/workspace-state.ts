// A workspace on disk: its folder, its state file (which version is kept, whether it holds
// private data, when a run last opened it) and its versions. A version is a folder of
// read-only files the host owns; a new one is built aside and becomes the kept one when the
// state file names it (written atomically), so a crash leaves the old or the new, never a mix.
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { isErrno } from "../../util/errno.js";
import { KEEPING_FILE, LOCK_FILE } from "./workspace-lock.js";
import { clientFolder, workspaceFolder } from "./workspace-name.js";

export const STATE_FILE = "state.json";
/** In a client's folder: the client's name, for listings. */
export const CLIENT_FILE = "client.json";
/** Where every client's folder is, under the store's root. */
export const CLIENTS_DIR = "clients";

const stateSchema = z.object({
  name: z.string(),
  client: z.string(),
  version: z.number().int().min(0),
  private: z.boolean(),
  files: z.number().int().min(0),
  bytes: z.number().int().min(0),
  createdAt: z.string(),
  usedAt: z.string(),
  /**
   * What became of the last run's workspace when its keep found otherwise than that run's
   * result said: told to the next run that opens it, then cleared.
   */
  notice: z.string().optional(),
});
export type WorkspaceState = z.infer<typeof stateSchema>;

const clientSchema = z.object({ client: z.string() });

/** Where one workspace's files are. */
export interface WorkspacePlace {
  clientDir: string;
  dir: string;
  state: string;
  lock: string;
  /** There while a run's keep is under way (workspace-lock.ts). */
  keeping: string;
}

export function workspacePlace(root: string, client: string, name: string): WorkspacePlace {
  const clientDir = path.join(root, CLIENTS_DIR, clientFolder(client));
  const dir = path.join(clientDir, workspaceFolder(name));
  return {
    clientDir,
    dir,
    state: path.join(dir, STATE_FILE),
    lock: path.join(dir, LOCK_FILE),
    keeping: path.join(dir, KEEPING_FILE),
  };
}

export function versionDir(place: WorkspacePlace, version: number): string {
  return path.join(place.dir, `v${version}`);
}

/** The state, or null when there is no such workspace (or its state cannot be read). */
export function readState(place: WorkspacePlace): WorkspaceState | null {
  let text: string;
  try {
    // Read directly: a small file, and a run waits for it (a thread pool round trip costs more).
    text = readFileSync(place.state, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return null;
    throw error;
  }
  try {
    const parsed = stateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function writeState(place: WorkspacePlace, state: WorkspaceState): Promise<void> {
  await writeFileAtomic(place.state, `${JSON.stringify(state)}\n`, 0o600, { keepBak: false });
}

/** Makes a workspace's folder with an empty version 0 (the caller holds its lock). */
export async function createWorkspace(
  place: WorkspacePlace,
  client: string,
  name: string,
  now: Date,
): Promise<WorkspaceState> {
  await mkdir(place.clientDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(
    path.join(place.clientDir, CLIENT_FILE),
    `${JSON.stringify({ client })}\n`,
    0o600,
    { keepBak: false },
  );
  await mkdir(versionDir(place, 0), { recursive: true, mode: 0o755 });
  const state: WorkspaceState = {
    name,
    client,
    version: 0,
    private: false,
    files: 0,
    bytes: 0,
    createdAt: now.toISOString(),
    usedAt: now.toISOString(),
  };
  await writeState(place, state);
  return state;
}

/** The client named in a client folder, or null. */
export async function readClient(clientDir: string): Promise<string | null> {
  try {
    const parsed = clientSchema.safeParse(
      JSON.parse(await readFile(path.join(clientDir, CLIENT_FILE), "utf8")),
    );
    return parsed.success ? parsed.data.client : null;
  } catch {
    return null;
  }
}

/**
 * Removes the versions the state does not name, left by a crash between build and switch, and
 * a keep's mark left by a crash during the keep (the caller holds the lock, so no keep is on).
 */
export async function removeStaleVersions(place: WorkspacePlace, kept: number): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(place.dir);
  } catch {
    names = [];
  }
  for (const name of names) {
    const stale =
      (name.startsWith("v") && name !== `v${kept}`) ||
      name.startsWith(".building-") ||
      name.startsWith(KEEPING_FILE);
    if (stale) await rm(path.join(place.dir, name), { recursive: true, force: true });
  }
}

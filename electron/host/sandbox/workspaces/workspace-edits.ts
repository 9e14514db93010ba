// What the user does to a workspace from the UI or the CLI: list its files, read one, put a
// file in, take one out. A change is a new version built aside and switched to whole, as a
// run's is, under the same lock, and within the same size limit. Reads take no lock (a run
// may hold it for long), but wait for a run's keep under way, to read what it kept.
import { randomBytes } from "node:crypto";
import { lstat, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { isErrno } from "../../util/errno.js";
import { buildEdited } from "./workspace-commit.js";
import { workspacePathParts } from "./workspace-name.js";
import { readState, versionDir, writeState } from "./workspace-state.js";
import { bytesText } from "../../util/bytes-text.js";
import { WorkspaceRefused, type WorkspaceStore } from "./workspace-store.js";
import { scanTree } from "./workspace-tree.js";

/** One file of a workspace as listings show it. */
export interface WorkspaceFileInfo {
  /** Its path inside the workspace, `/`-separated. */
  path: string;
  bytes: number;
  /** When it was last written into the workspace. */
  modifiedAt: string;
}

/** The files of a workspace, by path. */
export async function workspaceFiles(
  store: WorkspaceStore,
  client: string,
  name: string,
): Promise<WorkspaceFileInfo[]> {
  const place = store.place(client, name);
  await store.kept(client, name);
  for (let attempt = 0; ; attempt++) {
    const state = readState(place);
    if (state === null) throw new WorkspaceRefused(`there is no workspace "${name}"`);
    try {
      const tree = await scanTree(versionDir(place, state.version), WORKSPACE_LIMITS.maxEntries);
      return tree.entries
        .filter((entry) => entry.kind === "file")
        .map((entry) => ({
          path: entry.rel,
          bytes: entry.bytes,
          modifiedAt: new Date(entry.mtimeMs).toISOString(),
        }));
    } catch (error) {
      // A run kept a new version while this looked: look at that one.
      if (attempt < 2 && isErrno(error, "ENOENT")) continue;
      throw error;
    }
  }
}

/**
 * Up to `length` bytes of a workspace's file from `offset`, its whole size, and its id (which
 * stays while the file's bytes do: a version keeps an unchanged file as a link to the same one).
 * The file is opened once the kept version is known, so a run keeping a new one meanwhile cannot
 * cut a chunk; a reader in chunks passes the id the first chunk gave as `fileId`, and is refused
 * once the file changed, rather than given a file made of two versions' bytes.
 */
export async function readWorkspaceFile(
  store: WorkspaceStore,
  client: string,
  name: string,
  relPath: string,
  offset: number,
  length: number,
  fileId?: string,
): Promise<{ data: Buffer; total: number; fileId: string }> {
  const parts = workspacePathParts(relPath);
  const place = store.place(client, name);
  await store.kept(client, name);
  for (let attempt = 0; ; attempt++) {
    const state = readState(place);
    if (state === null) throw new WorkspaceRefused(`there is no workspace "${name}"`);
    const file = path.join(versionDir(place, state.version), ...parts);
    try {
      const info = await lstat(file);
      if (!info.isFile())
        throw new WorkspaceRefused(`"${relPath}" is not a file of the workspace "${name}"`);
      const handle = await open(file, "r");
      try {
        const opened = await handle.stat();
        const id = `${opened.dev}:${opened.ino}`;
        if (fileId !== undefined && fileId !== id) {
          throw new WorkspaceRefused(
            `"${relPath}" in the workspace "${name}" changed while it was being read: read it again`,
          );
        }
        const size = opened.size;
        const want = Math.max(0, Math.min(length, size - offset));
        const data = Buffer.alloc(want);
        const { bytesRead } = await handle.read(data, 0, want, offset);
        return { data: data.subarray(0, bytesRead), total: size, fileId: id };
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) {
        if (attempt < 2 && readState(place)?.version !== state.version) continue;
        throw new WorkspaceRefused(`the workspace "${name}" has no file "${relPath}"`);
      }
      throw error;
    }
  }
}

/**
 * Puts the host file `from` into `client`'s workspace `name` at `relPath` (replacing a file
 * there), making the workspace if it is new. Refused whole past the size limit.
 */
export async function putWorkspaceFile(
  store: WorkspaceStore,
  client: string,
  name: string,
  relPath: string,
  from: string,
  maxBytes: number,
): Promise<{ files: number; bytes: number }> {
  const rel = workspacePathParts(relPath).join("/");
  const adding = (await lstat(from)).size;
  const { place, state, release } = await store.hold(client, name, true);
  try {
    const kept = versionDir(place, state.version);
    const tree = await scanTree(kept, WORKSPACE_LIMITS.maxEntries);
    const clash = tree.entries.find(
      (entry) =>
        (entry.kind === "file" && rel.startsWith(`${entry.rel}/`)) ||
        (entry.kind === "dir" && entry.rel === rel),
    );
    if (clash !== undefined) {
      throw new WorkspaceRefused(
        `"${rel}" cannot be a file there: "${clash.rel}" is a ${clash.kind === "dir" ? "folder" : "file"}`,
      );
    }
    const replaced = tree.entries.find((entry) => entry.rel === rel)?.bytes ?? 0;
    const after = state.bytes - replaced + adding;
    if (after > maxBytes) {
      throw new WorkspaceRefused(
        `adding "${rel}" (${bytesText(adding)}) would take the workspace "${name}" to ${bytesText(after)}, over its limit of ${bytesText(maxBytes)}; nothing was changed`,
      );
    }
    return await switchTo(place, state, (target) =>
      buildEdited(kept, tree, target, { add: { rel, from } }),
    );
  } finally {
    await release();
  }
}

/** Takes a file or folder out of a workspace. */
export async function deleteWorkspaceFile(
  store: WorkspaceStore,
  client: string,
  name: string,
  relPath: string,
): Promise<{ files: number; bytes: number }> {
  const rel = workspacePathParts(relPath).join("/");
  const { place, state, release } = await store.hold(client, name, false);
  try {
    const kept = versionDir(place, state.version);
    const tree = await scanTree(kept, WORKSPACE_LIMITS.maxEntries);
    if (!tree.entries.some((entry) => entry.rel === rel)) {
      throw new WorkspaceRefused(`the workspace "${name}" has no file "${rel}"`);
    }
    return await switchTo(place, state, (target) =>
      buildEdited(kept, tree, target, { remove: rel }),
    );
  } finally {
    await release();
  }
}

async function switchTo(
  place: ReturnType<WorkspaceStore["place"]>,
  state: NonNullable<Awaited<ReturnType<typeof readState>>>,
  build: (target: string) => Promise<{ files: number; bytes: number }>,
): Promise<{ files: number; bytes: number }> {
  const building = path.join(place.dir, `.building-${randomBytes(6).toString("hex")}`);
  let built;
  try {
    built = await build(building);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  const next = { ...state, version: state.version + 1, files: built.files, bytes: built.bytes };
  await rename(building, versionDir(place, next.version));
  await writeState(place, next);
  await rm(versionDir(place, state.version), { recursive: true, force: true });
  return built;
}

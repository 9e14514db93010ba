// A client's named workspaces, kept in the data directory: opened by runs (filled into the
// run's slot, kept again from it whole or not at all once the run's container has stopped:
// workspace-session.ts), edited by the user (the UI, the CLI), listed, removed, and swept once
// unused past the keep time. A workspace belongs to the client that made it: another client
// naming the same workspace gets its own.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { canClone, type FillMode } from "./workspace-commit.js";
import { takeWorkspaceLock, waitForKeep } from "./workspace-lock.js";
import { checkWorkspaceName, workspaceNameProblem } from "./workspace-name.js";
import { isErrno } from "../../util/errno.js";
import { workspaceSession, type WorkspaceSession } from "./workspace-session.js";
export type { WorkspaceSession } from "./workspace-session.js";
import {
  CLIENTS_DIR,
  createWorkspace,
  readClient,
  readState,
  removeStaleVersions,
  workspacePlace,
  type WorkspacePlace,
  type WorkspaceState,
} from "./workspace-state.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";

/** The lock, in a client's folder, of making one of its workspaces (no workspace's name). */
const CREATING_LOCK = ".creating";

/** The limits the user sets (Sandbox page), read at each use. */
export interface WorkspaceLimits {
  maxBytes: number;
  perClient: number;
  keepDays: number;
}

/** A workspace could not be opened or changed: the message says why and what to do. */
export class WorkspaceRefused extends RunNotStarted {
  override name = "WorkspaceRefused";
}

/** One workspace as listings show it. */
export interface WorkspaceInfo {
  client: string;
  name: string;
  files: number;
  bytes: number;
  private: boolean;
  createdAt: string;
  usedAt: string;
}

export class WorkspaceStore {
  private fillMode: Promise<FillMode> | null = null;

  constructor(
    /** The store's folder (`<data dir>/workspaces`). */
    readonly root: string,
    private readonly limits: () => WorkspaceLimits,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private mode(): Promise<FillMode> {
    this.fillMode ??= canClone(this.root).then((clone): FillMode => (clone ? "clone" : "link"));
    return this.fillMode;
  }

  place(client: string, name: string): WorkspacePlace {
    return workspacePlace(this.root, client, name);
  }

  /** Holds `client`'s workspace `name` (waiting for another holder), making it if it is new. */
  async hold(
    client: string,
    name: string,
    create: boolean,
  ): Promise<{ place: WorkspacePlace; state: WorkspaceState; release: () => Promise<void> }> {
    checkWorkspaceName(name);
    const place = this.place(client, name);
    const what = `the workspace "${name}"`;
    // A workspace that exists (the usual case) is locked straight away; a lock file with no
    // folder to go in means a new one: its folder is made, and it is counted under the lock.
    let release = await takeWorkspaceLock(place.lock, what).catch((error: unknown) => {
      if (isErrno(error, "ENOENT")) return null;
      throw error;
    });
    if (release === null) {
      if (!create) throw new WorkspaceRefused(`there is no workspace "${name}"`);
      await mkdir(place.dir, { recursive: true, mode: 0o700 });
      release = await takeWorkspaceLock(place.lock, what);
    }
    try {
      let state = readState(place);
      if (state === null) {
        // A folder with no state yet: made by a process that stopped before writing it.
        if (!create) throw new WorkspaceRefused(`there is no workspace "${name}"`);
        state = await this.createCounted(place, client, name).catch(async (error: unknown) => {
          // The folder of one the count refused is not left behind, unlisted and uncounted.
          await rm(place.dir, { recursive: true, force: true });
          throw error;
        });
      }
      await removeStaleVersions(place, state.version);
      return { place, state, release };
    } catch (error) {
      await release();
      throw error;
    }
  }

  /**
   * Makes a workspace within the per-client count: a client's new workspaces are counted and
   * made one at a time (in this process and across processes), so runs naming new ones at
   * once cannot each find room for one more.
   */
  private async createCounted(
    place: WorkspacePlace,
    client: string,
    name: string,
  ): Promise<WorkspaceState> {
    const lock = path.join(place.clientDir, CREATING_LOCK);
    const release = await takeWorkspaceLock(lock, `the workspaces of this client`);
    try {
      await this.checkRoom(client, name);
      return await createWorkspace(place, client, name, this.now());
    } finally {
      await release();
    }
  }

  private async checkRoom(client: string, name: string): Promise<void> {
    const { perClient } = this.limits();
    const have = (await this.list(client)).length;
    if (have >= perClient) {
      throw new WorkspaceRefused(
        `cannot make the workspace "${name}": this client has ${have} workspaces, the most it may have (the "Workspaces per client" setting on Code Mode's Sandbox page). Use one of them, or delete one in Code Mode.`,
      );
    }
  }

  /**
   * Opens `client`'s workspace `name` for one run; held until the session is released and the
   * run's keep is done.
   */
  async open(client: string, name: string): Promise<WorkspaceSession> {
    const { place, state, release } = await this.hold(client, name, true);
    // When it was opened is written before the workspace is given back (the sweep reads it
    // under the lock), not here: a state write (two fsyncs) would delay the run's start.
    const opened: WorkspaceState = { ...state, usedAt: this.now().toISOString() };
    const maxBytes = this.limits().maxBytes;
    let mode;
    try {
      mode = await this.mode();
    } catch (error) {
      await release();
      throw error;
    }
    return workspaceSession({ place, opened, maxBytes, mode, now: this.now, release });
  }

  /**
   * Waits while a run's keep of `client`'s workspace `name` is under way, here or in another
   * process: what is read after it is what the keep left.
   */
  async kept(client: string, name: string): Promise<void> {
    await waitForKeep(this.place(client, name).keeping, `the workspace "${name}"`);
  }

  /** The workspaces of `client`, or of every client. */
  async list(client?: string): Promise<WorkspaceInfo[]> {
    const clientsDir = path.join(this.root, CLIENTS_DIR);
    const folders =
      client === undefined
        ? await readdir(clientsDir).catch(() => [] as string[])
        : [path.basename(this.place(client, "x").clientDir)];
    const out: WorkspaceInfo[] = [];
    for (const folder of folders) {
      const clientDir = path.join(clientsDir, folder);
      const owner = await readClient(clientDir);
      if (owner === null) continue;
      for (const name of await readdir(clientDir).catch(() => [] as string[])) {
        // Folders being removed (renamed aside first) and anything else are not workspaces.
        if (workspaceNameProblem(name) !== null || name.includes(".removing-")) continue;
        const place = this.place(owner, name);
        // A keep under way is waited for; one that takes too long (a container slow to stop,
        // here or in another process) is not: the listing shows what is kept so far rather
        // than fail.
        await waitForKeep(place.keeping, name).catch(() => undefined);
        const state = readState(place);
        if (state === null) continue;
        const { client: who, name: shown, files, bytes, createdAt, usedAt } = state;
        out.push({
          client: who,
          name: shown,
          files,
          bytes,
          private: state.private,
          createdAt,
          usedAt,
        });
      }
    }
    return out.sort((a, b) => a.client.localeCompare(b.client) || a.name.localeCompare(b.name));
  }

  /**
   * Removes a workspace and everything in it; with `unless`, only if it says no of the state
   * read under the lock (the sweep: a run may have opened it meanwhile).
   */
  async remove(
    client: string,
    name: string,
    unless?: (state: WorkspaceState) => boolean,
  ): Promise<WorkspaceInfo | null> {
    const { place, state, release } = await this.hold(client, name, false);
    try {
      if (unless?.(state)) return null;
      const gone = `${place.dir}.removing-${randomBytes(4).toString("hex")}`;
      await rename(place.dir, gone);
      await rm(gone, { recursive: true, force: true });
      const { client: who, files, bytes, createdAt, usedAt } = state;
      return {
        client: who,
        name: state.name,
        files,
        bytes,
        private: state.private,
        createdAt,
        usedAt,
      };
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** Removes the workspaces no run opened for longer than the keep time; those that went. */
  async sweep(): Promise<WorkspaceInfo[]> {
    const keepMs = this.limits().keepDays * 24 * 60 * 60 * 1000;
    const cutoff = this.now().getTime() - keepMs;
    const removed: WorkspaceInfo[] = [];
    for (const info of await this.list()) {
      if (Date.parse(info.usedAt) >= cutoff) continue;
      const gone = await this.remove(
        info.client,
        info.name,
        (state) => Date.parse(state.usedAt) >= cutoff,
      ).catch(() => null);
      if (gone !== null) removed.push(gone);
    }
    return removed;
  }
}

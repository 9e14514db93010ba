// A client's named workspaces, kept in the data directory: opened by runs (filled into the
// run's slot, kept again from it whole or not at all), edited by the user (the UI, the CLI),
// listed, removed, and swept once unused past the keep time. A workspace belongs to the
// client that made it: another client naming the same workspace gets its own.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { RunWorkspace } from "../../../../shared/run-result.js";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { buildFromSlot, canClone, fillSlot, type FillMode } from "./workspace-commit.js";
import { shutOut, withSlotOpened } from "./slot-opener.js";
import { takeWorkspaceLock } from "./workspace-lock.js";
import { checkWorkspaceName, workspaceNameProblem } from "./workspace-name.js";
import type { Slot } from "./workspace-slots.js";
import {
  CLIENTS_DIR,
  createWorkspace,
  readClient,
  readState,
  removeStaleVersions,
  versionDir,
  workspacePlace,
  writeState,
  type WorkspacePlace,
  type WorkspaceState,
} from "./workspace-state.js";
import { scanTree, TreeTooLarge } from "./workspace-tree.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";

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

/** How a run's workspace ended: the report for the result, and why nothing was kept if so. */
export interface WorkspaceSettled {
  report: RunWorkspace;
  /** Set when the run's changes were refused (over the limit, unreadable): the run fails with it. */
  problem: string | null;
}

/** A workspace held by one run, from its fill to its settle. */
export interface WorkspaceSession {
  readonly name: string;
  /** It held private data when opened. */
  readonly private: boolean;
  readonly maxBytes: number;
  fill(slot: Slot): Promise<void>;
  settle(
    slot: Slot,
    outcome: { finished: boolean; privateData: boolean },
  ): Promise<WorkspaceSettled>;
  /** Gives the workspace back (after settle, or when the run never started). */
  release(): Promise<void>;
}

/** Bytes as the messages say them: "1 GiB", "12.5 MiB". */
export function bytesText(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown =
    unit === 0 ? String(value) : value.toFixed(value >= 10 || Number.isInteger(value) ? 0 : 1);
  return `${shown} ${units[unit]}`;
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
    let state = await readState(place);
    if (state === null && !create) throw new WorkspaceRefused(`there is no workspace "${name}"`);
    if (state === null) await this.checkRoom(client, name);
    await mkdir(place.dir, { recursive: true, mode: 0o700 });
    const release = await takeWorkspaceLock(place.lock, `the workspace "${name}"`);
    try {
      state = (await readState(place)) ?? (await createWorkspace(place, client, name, this.now()));
      await removeStaleVersions(place, state.version);
      return { place, state, release };
    } catch (error) {
      await release();
      throw error;
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

  /** Opens `client`'s workspace `name` for one run. */
  async open(client: string, name: string): Promise<WorkspaceSession> {
    const { place, state, release } = await this.hold(client, name, true);
    const opened: WorkspaceState = { ...state, usedAt: this.now().toISOString() };
    try {
      await writeState(place, opened);
    } catch (error) {
      await release();
      throw error;
    }
    const maxBytes = this.limits().maxBytes;
    const mode = await this.mode();
    let filled: Awaited<ReturnType<typeof fillSlot>> | null = null;
    let released = false;
    const kept = versionDir(place, opened.version);
    return {
      name: opened.name,
      private: opened.private,
      maxBytes,
      fill: async (slot) => {
        const tree = await scanTree(kept, WORKSPACE_LIMITS.maxEntries);
        filled = await fillSlot(kept, tree, slot.workspace, mode);
      },
      settle: (slot, outcome) => this.settle(place, opened, filled, slot, outcome, maxBytes),
      release: async () => {
        if (released) return;
        released = true;
        await release();
      },
    };
  }

  private async settle(
    place: WorkspacePlace,
    state: WorkspaceState,
    filled: Awaited<ReturnType<typeof fillSlot>> | null,
    slot: Slot,
    outcome: { finished: boolean; privateData: boolean },
    maxBytes: number,
  ): Promise<WorkspaceSettled> {
    const unchanged: RunWorkspace = {
      name: state.name,
      kept: false,
      filesChanged: 0,
      bytesChanged: 0,
      files: state.files,
      bytes: state.bytes,
      private: state.private,
    };
    if (!outcome.finished || filled === null) return { report: unchanged, problem: null };
    const refuse = (why: string): WorkspaceSettled => ({
      report: unchanged,
      problem: `${why}: nothing this run wrote there was kept, and it holds what it held before the run.`,
    });
    // A run can shut the host out of what it made (its permissions): the slot is opened to the
    // host then, and walked again; the error never names a path of the host's.
    const shutOutOf = (): WorkspaceSettled =>
      refuse(
        `the run left a file in the workspace "${state.name}" that Code Mode cannot read (its permissions were changed)`,
      );
    let tree;
    try {
      tree = await withSlotOpened(slot.dir, slot.open, () =>
        scanTree(slot.workspace, WORKSPACE_LIMITS.maxEntries),
      );
    } catch (error) {
      if (error instanceof TreeTooLarge)
        return refuse(`the workspace "${state.name}" would hold ${error.message}`);
      if (shutOut(error)) return shutOutOf();
      throw error;
    }
    if (tree.bytes > maxBytes) {
      return refuse(
        `the workspace "${state.name}" would hold ${bytesText(tree.bytes)}, over its limit of ${bytesText(maxBytes)} (the "Workspace size" setting on Code Mode's Sandbox page)`,
      );
    }
    const building = path.join(place.dir, `.building-${randomBytes(6).toString("hex")}`);
    let built;
    const build = async () => {
      await rm(building, { recursive: true, force: true });
      return buildFromSlot(
        slot.workspace,
        tree,
        versionDir(place, state.version),
        filled,
        building,
      );
    };
    try {
      built = await withSlotOpened(slot.dir, slot.open, build);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      if (shutOut(error)) return shutOutOf();
      throw error;
    }
    if (built === null) return { report: { ...unchanged, kept: true }, problem: null };
    const next: WorkspaceState = {
      ...state,
      version: state.version + 1,
      private: state.private || outcome.privateData,
      files: built.files,
      bytes: built.bytes,
      usedAt: this.now().toISOString(),
    };
    await rename(building, versionDir(place, next.version));
    await writeState(place, next);
    await rm(versionDir(place, state.version), { recursive: true, force: true });
    return {
      report: {
        name: state.name,
        kept: true,
        filesChanged: built.filesChanged,
        bytesChanged: built.bytesChanged,
        files: built.files,
        bytes: built.bytes,
        private: next.private,
      },
      problem: null,
    };
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
        const state = await readState(this.place(owner, name));
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

// The slots: one empty folder per sandbox container, mounted at its WORKSPACE_SLOT_PATH when it
// is made (a warm container cannot be given a mount later). A run with a workspace gets its
// files put in the slot's `ws` folder when it takes the container; a run without one finds the
// slot empty and closed to it (owned by the host, not writable by the sandbox's user), so it
// has no /workspace and can write nothing there.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { chmod, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { WORKSPACE_SLOT_DIR } from "../containers/container-spec.js";
import { pidAlive } from "../../util/process-place.js";
import { withSlotOpened, type SlotOpener } from "./slot-opener.js";
import { removeTree } from "./workspace-tree.js";

/** A slot folder and the workspace folder in it. */
export interface Slot {
  /** Mounted as the container's WORKSPACE_SLOT_PATH. */
  dir: string;
  /** Where a run's workspace goes: `/workspace` in the container points at it. */
  workspace: string;
  /**
   * Gives the host back what a run left in the slot and shut it out of (slot-opener.ts); absent
   * where the slot's engine cannot open it.
   */
  open?: (() => Promise<void>) | undefined;
}

/**
 * Slots of one process under `<root>/<pid>/`: a process that died leaves its folder, which the
 * next one to start removes (sweep).
 */
export class SlotRoot {
  private readonly mine: string;

  constructor(
    private readonly root: string,
    private readonly isAlive: (pid: number) => boolean = pidAlive,
  ) {
    this.mine = path.join(root, String(process.pid));
  }

  /** A new, empty slot: readable by the sandbox, writable only by the host. */
  async create(): Promise<Slot> {
    const dir = path.join(this.mine, randomBytes(8).toString("hex"));
    await mkdir(dir, { recursive: true, mode: 0o755 });
    // The process's umask may have taken bits off: the sandbox must read it, never write it.
    await chmod(dir, 0o755);
    return { dir, workspace: path.join(dir, WORKSPACE_SLOT_DIR) };
  }

  /**
   * The slot's `ws` folder, made writable by the sandbox's user: the run's /workspace. Made
   * directly, as a walk's calls are (workspace-tree.ts): it is on the run's way.
   */
  open(slot: Slot): void {
    mkdirSync(slot.workspace, { mode: 0o777 });
    chmodSync(slot.workspace, 0o777);
  }

  /**
   * Removes a slot and what a run left in it, opening it first (`slot.open`) when the run shut
   * the host out of something there (a folder of mode 0700 the host's user does not own).
   */
  async release(slot: Slot): Promise<void> {
    await withSlotOpened(slot.dir, slot.open, () => removeTree(slot.dir));
  }

  /**
   * Removes the slots of processes that are gone (a crash skips release); with `open`, also
   * those a killed run shut the host out of. Returns how many could not be removed.
   */
  sweep(open?: SlotOpener | null): Promise<number> {
    const swept = this.sweeping.then(() => this.sweepNow(open));
    this.sweeping = swept.catch(() => 0);
    return swept;
  }

  private sweeping: Promise<number> = Promise.resolve(0);

  private async sweepNow(open?: SlotOpener | null): Promise<number> {
    const owners = await readdir(this.root).catch(() => [] as string[]);
    let left = 0;
    for (const owner of owners) {
      const pid = Number(owner);
      if (!Number.isSafeInteger(pid) || pid === process.pid || this.isAlive(pid)) continue;
      const dir = path.join(this.root, owner);
      // The process's folder of slots is the host's, made under its umask (077 shuts the
      // sandbox's user out): it is mounted whole, so that user must be let in first.
      const openAll = open && ((at: string) => chmod(at, 0o755).then(() => open(at)));
      await withSlotOpened(dir, openAll, () => removeTree(dir)).catch(() => left++);
    }
    return left;
  }
}

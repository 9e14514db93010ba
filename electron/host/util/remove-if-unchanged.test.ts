import { existsSync } from "node:fs";
import { mkdir, open, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removalGatePath, removeIfUnchanged, LOCK_GATE_STALE_MS } from "./remove-if-unchanged.js";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";

afterEach(removeTempDirs);

/** A promise the test settles by hand, to hold a remover at a step. */
function gateKeeper(): { wait: () => Promise<void>; open: () => void } {
  let opened: () => void = () => undefined;
  const shut = new Promise<void>((resolve) => (opened = resolve));
  return { wait: () => shut, open: () => opened() };
}

/**
 * Starts removing `file` and returns once the remover has read it inside the gate, where it
 * stays until `open` is called; `done` settles when the removal does.
 */
async function removerPausedInGate(
  file: string,
  expected: string,
): Promise<{ done: Promise<void>; open: () => void }> {
  const paused = gateKeeper();
  let inGate!: () => void;
  const entered = new Promise<void>((resolve) => (inGate = resolve));
  const done = removeIfUnchanged(file, expected, {
    afterRead: async () => {
      inGate();
      await paused.wait();
    },
  });
  await Promise.race([
    entered,
    done.then(() => Promise.reject(new Error("the removal ended without pausing in the gate"))),
  ]);
  return { done, open: paused.open };
}

/** What another process taking the lock does: create it with O_EXCL. */
async function takeLock(file: string, content: string): Promise<"took" | "taken"> {
  try {
    const handle = await open(file, "wx");
    await handle.writeFile(content);
    await handle.close();
    return "took";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return "taken";
    throw error;
  }
}

describe("removeIfUnchanged", () => {
  it("removes the file holding what it expects, leaves a changed or missing one, and no gate", async () => {
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    await writeFile(file, "1 a\n");
    await removeIfUnchanged(file, "1 a\n");
    expect(existsSync(file)).toBe(false);
    await removeIfUnchanged(file, "1 a\n");
    await writeFile(file, "2 b\n");
    await removeIfUnchanged(file, "1 a\n");
    expect(await readFile(file, "utf8")).toBe("2 b\n");
    expect(existsSync(removalGatePath(file))).toBe(false);
  });

  it("never frees the name of a lock taken since it was judged stale: a third taker is kept out", async () => {
    // The interleaving that lost a lock: A and B judge lock X stale; B removes it and takes
    // the lock (Y); A, still removing X, finds Y. Before, A had moved Y aside to look at it:
    // C took the free name meanwhile, A could not move Y back and deleted it: B and C both
    // held the lock.
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    await writeFile(file, "B's lock\n");
    let third: "took" | "taken" | undefined;
    await removeIfUnchanged(file, "X, judged stale\n", {
      afterRead: async () => {
        third = await takeLock(file, "C's lock\n");
      },
    });
    expect(third).toBe("taken");
    expect(await readFile(file, "utf8")).toBe("B's lock\n");
  });

  it("lets one remover at a time read and remove: a second waits for the first to finish", async () => {
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    await writeFile(file, "X\n");
    const first = await removerPausedInGate(file, "X\n");
    let secondDone = false;
    const second = removeIfUnchanged(file, "X\n").then(() => (secondDone = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(secondDone).toBe(false);
    expect(await readFile(file, "utf8")).toBe("X\n");
    first.open();
    await Promise.all([first.done, second]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(removalGatePath(file))).toBe(false);
  });

  it("clears a gate left by a remover that died in it, or left empty", async () => {
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    const gate = removalGatePath(file);
    await mkdir(gate);
    await writeFile(path.join(gate, `${Date.now() - 60_000}-dead`), "");
    await writeFile(file, "X\n");
    await removeIfUnchanged(file, "X\n");
    expect(existsSync(file)).toBe(false);
    await mkdir(gate);
    await writeFile(file, "X\n");
    await removeIfUnchanged(file, "X\n");
    expect(existsSync(file)).toBe(false);
    expect(existsSync(gate)).toBe(false);
  });
});

describe("removeIfUnchanged, the unrenamed gates of removers that died waiting", () => {
  it("clears a dead waiter's gate folder, with its turn or still empty, and keeps a live one's", async () => {
    // A remover makes `LOCK.gate.ID` with its turn in it and renames it to `LOCK.gate`; one that
    // died before that rename left the folder beside the lock, and before, nothing cleared it.
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    const gate = removalGatePath(file);
    const long = (Date.now() - 60_000) / 1000;
    const withTurn = `${gate}.0123456789ab`;
    await mkdir(withTurn);
    await writeFile(path.join(withTurn, `${Date.now() - 60_000}-0123456789ab`), "");
    await utimes(withTurn, long, long);
    const empty = `${gate}.ba9876543210`;
    await mkdir(empty);
    await utimes(empty, long, long);
    const waiting = `${gate}.a1a1a1a1a1a1`;
    await mkdir(waiting);
    await writeFile(path.join(waiting, `${Date.now()}-a1a1a1a1a1a1`), "");
    // Its folder's mtime looks old, as a file server's clock or attribute cache can make it:
    // the live waiter's fresh turn stamp is what counts.
    await utimes(waiting, long, long);
    const other = `${gate}.notes`;
    await mkdir(other);
    await utimes(other, long, long);
    await writeFile(file, "X\n");
    await removeIfUnchanged(file, "X\n");
    expect(existsSync(file)).toBe(false);
    expect((await readdir(dir)).sort()).toEqual([path.basename(waiting), path.basename(other)]);
  });
});

describe("removeIfUnchanged, a gate entered after a wait", () => {
  it("keeps a remover that waited long to enter safe in the gate for the whole stale time", async () => {
    // A remover that died in the gate left it; A waits until it is stale (3 s here), then
    // enters. Its turn must count from when it entered: before, it counted from when A began
    // to wait, so A was taken for dead 2 s after entering and a second remover came in.
    const dir = tempDir("cm-rm-");
    const file = path.join(dir, "x.lock");
    const gate = removalGatePath(file);
    await mkdir(gate);
    const deadAt = Date.now() - LOCK_GATE_STALE_MS + 3_000;
    await writeFile(path.join(gate, `${deadAt}-dead`), "");
    await writeFile(file, "X\n");
    const first = await removerPausedInGate(file, "X\n");
    let secondDone = false;
    const second = removeIfUnchanged(file, "X\n").then(() => (secondDone = true));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(secondDone).toBe(false);
    expect(await readFile(file, "utf8")).toBe("X\n");
    first.open();
    await Promise.all([first.done, second]);
    expect(existsSync(file)).toBe(false);
  }, 20_000);
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ LOCK_GATE_STALE_MS }).toEqual({
      LOCK_GATE_STALE_MS: 5_000,
    });
  });
});

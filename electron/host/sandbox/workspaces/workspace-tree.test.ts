// The walks on a run's way make their file system calls directly, and a big tree still lets the
// host's other work run between every WALK_CALLS_IN_A_ROW of them.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { fillSlot } from "./workspace-commit.js";
import { scanTree, WALK_CALLS_IN_A_ROW } from "./workspace-tree.js";

afterAll(() => removeTempDirs());

/** A folder of `count` small files in `sub/`. */
function tree(count: number): string {
  const root = tempDir("cm-wstree-");
  mkdirSync(path.join(root, "sub"));
  for (let i = 0; i < count; i++) writeFileSync(path.join(root, "sub", `f${i}`), "x");
  return root;
}

/** Whether a callback queued as `work` starts gets to run before `work` ends. */
async function yieldsWhile(work: () => Promise<unknown>): Promise<boolean> {
  let done = false;
  let ranBetween = false;
  setImmediate(() => (ranBetween = !done));
  await work();
  done = true;
  return ranBetween;
}

describe("a walk on the run's way", () => {
  it("sees every file, parents before children", async () => {
    const root = tree(3);
    const found = await scanTree(root, 100);
    expect(found.entries.map((e) => e.rel)).toEqual(["sub", "sub/f0", "sub/f1", "sub/f2"]);
    expect(found.bytes).toBe(3);
  });

  it("lets other work run in a big tree, and not in a small one", async () => {
    const big = tree(WALK_CALLS_IN_A_ROW * 2);
    expect(await yieldsWhile(() => scanTree(big, 100_000))).toBe(true);
    const small = tree(10);
    expect(await yieldsWhile(() => scanTree(small, 100_000))).toBe(false);
  });

  it("a fill of many files lets other work run too", async () => {
    const kept = tree(WALK_CALLS_IN_A_ROW * 2);
    const scanned = await scanTree(kept, 100_000);
    const into = tempDir("cm-wsfill-");
    expect(await yieldsWhile(() => fillSlot(kept, scanned, into, "link"))).toBe(true);
    expect((await scanTree(into, 100_000)).count).toBe(scanned.count);
  });
});

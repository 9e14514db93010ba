// Run by the workspace lock's race test as a real process, so takers race for the lock for
// real. Prints "ready" once loaded; on a "go" line on stdin, takes the workspace lock in DIR
// TIMES times, each time entering DIR/inside (made exclusively, so a second holder at once
// finds it there) and leaving it before the release; then prints how many times it found
// another holder inside.
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import {
  LOCK_FILE,
  takeWorkspaceLock,
} from "../electron/host/sandbox/workspaces/workspace-lock.js";

const [dir, times] = process.argv.slice(2);
if (dir === undefined || times === undefined)
  throw new Error("usage: workspace-lock-taker DIR TIMES");
const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on("line", (line) => line === "go" && resolve()));
process.stdout.write("ready\n");
await go;
lines.close();
const inside = path.join(dir, "inside");
let together = 0;
for (let i = 0; i < Number(times); i++) {
  const release = await takeWorkspaceLock(path.join(dir, LOCK_FILE), "the workspace");
  try {
    await (await open(inside, "wx")).close();
    await new Promise((resolve) => setImmediate(resolve));
    await rm(inside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    together++;
  }
  await release();
}
process.stdout.write(`${together}\n`);

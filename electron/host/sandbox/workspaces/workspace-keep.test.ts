// A run answered before its keep, on a real file system, with the sandbox's side played by this
// process writing into the slot: what is written after the check (as a thread or a process the
// code left would) is kept whole when within the limits, else nothing of the run is; either way
// the next run is told. The workspace stays held, and readers wait, until the keep is done.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { until } from "../../../../test-support/wait.js";
import { readWorkspaceFile, workspaceFiles } from "./workspace-edits.js";
import { SlotRoot, type Slot } from "./workspace-slots.js";
import { WorkspaceStore, type WorkspaceLimits } from "./workspace-store.js";

afterAll(() => removeTempDirs());

function setup(limits: Partial<WorkspaceLimits> = {}) {
  const root = tempDir("cm-wskeep-");
  const all: WorkspaceLimits = { maxBytes: 1024 * 1024, perClient: 5, keepDays: 7, ...limits };
  const store = new WorkspaceStore(path.join(root, "workspaces"), () => all);
  const slots = new SlotRoot(path.join(root, "slots"));
  return { store, slots, limits: all };
}
type Env = ReturnType<typeof setup>;

/**
 * A run up to its answer: opened, filled, `write` as the code, then checked. The keep is left
 * to the caller, as the sandbox leaves it until the container has stopped.
 */
async function answered(env: Env, name: string, write: (dir: string) => void, privateData = false) {
  const session = await env.store.open("c", name);
  const slot = await env.slots.create();
  env.slots.open(slot);
  await session.fill(slot);
  write(slot.workspace);
  const checked = await session.check(slot, { finished: true, privateData });
  return { session, slot, checked };
}

/** Keeps, then gives the workspace and the slot back. */
async function keepAndRelease(env: Env, run: Awaited<ReturnType<typeof answered>>, stopped = true) {
  const late = await run.checked.keep!(run.slot, stopped);
  await run.session.release();
  await env.slots.release(run.slot);
  return late;
}

/** The files a fresh run finds, with their text, and what it is told. */
async function nextRun(env: Env, name: string) {
  const files: Record<string, string> = {};
  const run = await answered(env, name, (dir) => {
    for (const file of readdirSync(dir)) files[file] = readFileSync(path.join(dir, file), "utf8");
  });
  await keepAndRelease(env, run);
  return { files, report: run.checked.outcome.report };
}

const write = (slot: Slot | string, file: string, text: string): void =>
  writeFileSync(path.join(typeof slot === "string" ? slot : slot.workspace, file), text);

describe("a run answered before its keep", () => {
  it("keeps what it answered when nothing wrote after the check, and tells no one", async () => {
    const env = setup();
    const run = await answered(env, "w", (dir) => write(dir, "a.txt", "one"));
    expect(run.checked.outcome).toMatchObject({
      report: { kept: true, filesChanged: 1, files: 1, bytes: 3 },
      problem: null,
    });
    expect(await keepAndRelease(env, run)).toBeNull();
    const next = await nextRun(env, "w");
    expect(next.files).toEqual({ "a.txt": "one" });
    expect(next.report.notice).toBeUndefined();
  });

  it("a write after the check within the limit is kept whole, and the next run is told", async () => {
    const env = setup();
    const run = await answered(env, "w", (dir) => write(dir, "a.txt", "one"));
    write(run.slot, "late.txt", "late");
    const late = await keepAndRelease(env, run);
    expect(late).toMatchObject({ kept: true, report: { files: 2, bytes: 7 } });
    expect(late?.notice).toContain("after that run ended: what it held then was kept");
    const next = await nextRun(env, "w");
    expect(next.files).toEqual({ "a.txt": "one", "late.txt": "late" });
    expect(next.report.notice).toBe(late?.notice);
    // Told once.
    expect((await nextRun(env, "w")).report.notice).toBeUndefined();
  });

  it("a write after the check past the limit keeps nothing of the run, and the next run is told", async () => {
    const env = setup({ maxBytes: 100 });
    await keepAndRelease(env, await answered(env, "w", (dir) => write(dir, "keep.txt", "before")));
    const run = await answered(env, "w", (dir) => write(dir, "new.txt", "after"));
    expect(run.checked.outcome.report).toMatchObject({ kept: true, files: 2, bytes: 11 });
    write(run.slot, "big.bin", "x".repeat(200));
    const late = await keepAndRelease(env, run);
    expect(late).toMatchObject({ kept: false, report: { kept: false, files: 1, bytes: 6 } });
    expect(late?.notice).toBe(
      'the previous run\'s code wrote to the workspace "w" after that run ended, and the workspace "w" would hold 211 bytes, over its limit of 100 bytes (the "Workspace size" setting on Code Mode\'s Sandbox page): nothing of that run was kept, and it holds what it held before that run.',
    );
    const next = await nextRun(env, "w");
    expect(next.files).toEqual({ "keep.txt": "before" });
    expect(next.report.notice).toBe(late?.notice);
  });

  it("a container that could not be stopped keeps nothing, and the next run is told", async () => {
    const env = setup();
    const run = await answered(env, "w", (dir) => write(dir, "a.txt", "one"));
    const late = await keepAndRelease(env, run, false);
    expect(late?.kept).toBe(false);
    expect(late?.notice).toContain("container could not be stopped");
    const next = await nextRun(env, "w");
    expect(next.files).toEqual({});
    expect(next.report.notice).toBe(late?.notice);
  });

  it("marks the workspace private from the client's state at the check, not at the keep", async () => {
    const env = setup();
    const run = await answered(env, "w", (dir) => write(dir, "a.txt", "secret"), true);
    expect(run.checked.outcome.report.private).toBe(true);
    await keepAndRelease(env, run);
    const next = await env.store.open("c", "w");
    expect(next.private).toBe(true);
    await next.release();
  });

  it("holds the workspace until the keep is done, though released at the answer", async () => {
    const env = setup();
    const run = await answered(env, "w", (dir) => write(dir, "a.txt", "one"));
    // As the engine does: released once answered, the keep still to come.
    const released = run.session.release();
    let opened = false;
    const opening = env.store.open("c", "w").then((session) => {
      opened = true;
      return session;
    });
    const listing = env.store.list("c");
    const files = workspaceFiles(env.store, "c", "w");
    const read = readWorkspaceFile(env.store, "c", "w", "a.txt", 0, 10);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(opened).toBe(false);
    await run.checked.keep!(run.slot, true);
    await released;
    await until(() => opened, "the next open");
    // What each reader read is what the keep left, not the workspace as it was before the run.
    expect((await listing).map((w) => [w.name, w.files, w.bytes])).toEqual([["w", 1, 3]]);
    expect((await files).map((f) => f.path)).toEqual(["a.txt"]);
    expect((await read).data.toString()).toBe("one");
    await (await opening).release();
    await env.slots.release(run.slot);
  });

  it("a keep's mark that cannot be written fails the check, the slot's scan still under way", async () => {
    const env = setup();
    const place = env.store.place("c", "w");
    await keepAndRelease(env, await answered(env, "w", () => undefined));
    const session = await env.store.open("c", "w");
    // The mark is written aside first: a folder there makes its writing fail at once, while
    // the scan of a slot of many files goes on.
    mkdirSync(`${place.keeping}.${process.pid}`);
    const slot = await env.slots.create();
    env.slots.open(slot);
    await session.fill(slot);
    for (let i = 0; i < 300; i++) write(slot, `f${i}.txt`, "x");
    await expect(session.check(slot, { finished: true, privateData: false })).rejects.toThrow(
      /EISDIR/,
    );
    expect(existsSync(place.keeping)).toBe(false);
    await session.release();
    await env.slots.release(slot);
  });
});

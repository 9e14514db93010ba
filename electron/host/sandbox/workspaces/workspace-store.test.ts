// The workspace store on a real file system, with the sandbox's side played by this process
// writing into the slot as a run would. Keeping is whole or nothing, two clients stay apart,
// private data marks the workspace, and the limits hold.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { until } from "../../../../test-support/wait.js";
import {
  deleteWorkspaceFile,
  putWorkspaceFile,
  readWorkspaceFile,
  workspaceFiles,
} from "./workspace-edits.js";
import { checkWorkspaceName, workspacePathParts } from "./workspace-name.js";
import { SlotRoot } from "./workspace-slots.js";
import {
  WorkspaceRefused,
  WorkspaceStore,
  type WorkspaceLimits,
  type WorkspaceSession,
} from "./workspace-store.js";

afterAll(() => removeTempDirs());

function setup(limits: Partial<WorkspaceLimits> = {}, now = () => new Date()) {
  const root = tempDir("cm-ws-");
  const all: WorkspaceLimits = { maxBytes: 1024 * 1024, perClient: 5, keepDays: 7, ...limits };
  const store = new WorkspaceStore(path.join(root, "workspaces"), () => all, now);
  const slots = new SlotRoot(path.join(root, "slots"));
  return { store, slots, limits: all };
}

/** A run: opens, fills a slot, lets `write` change it, keeps what it left. */
async function run(
  env: ReturnType<typeof setup>,
  client: string,
  name: string,
  write: (dir: string) => void,
  outcome = { finished: true, privateData: false },
) {
  const session = await env.store.open(client, name);
  const slot = await env.slots.create();
  try {
    env.slots.open(slot);
    await session.fill(slot);
    write(slot.workspace);
    return { session, ...(await session.settle(slot, outcome)) };
  } finally {
    await session.release();
    await env.slots.release(slot);
  }
}

/** The files a fresh run finds, with their text. */
async function seen(env: ReturnType<typeof setup>, client: string, name: string) {
  const files: Record<string, string> = {};
  await run(env, client, name, (dir) => {
    const walk = (rel: string): void => {
      for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) walk(child);
        else files[child] = readFileSync(path.join(dir, child), "utf8");
      }
    };
    walk("");
  });
  return files;
}

describe("workspace store", () => {
  it("keeps what a run leaves, for the next run of the same client and name", async () => {
    const env = setup();
    const first = await run(env, "claude", "sales", (dir) => {
      writeFileSync(path.join(dir, "a.csv"), "1,2\n");
      mkdirSync(path.join(dir, "out"));
      writeFileSync(path.join(dir, "out", "b.txt"), "bee");
    });
    expect(first.problem).toBeNull();
    expect(first.report).toEqual({
      name: "sales",
      kept: true,
      filesChanged: 2,
      bytesChanged: 7,
      files: 2,
      bytes: 7,
      private: false,
    });
    expect(await seen(env, "claude", "sales")).toEqual({ "a.csv": "1,2\n", "out/b.txt": "bee" });
    // Changing one file copies only that one; the other is linked from the kept version.
    const second = await run(env, "claude", "sales", (dir) => {
      rmSync(path.join(dir, "a.csv"));
      writeFileSync(path.join(dir, "a.csv"), "3,4,5\n");
    });
    expect(second.report).toMatchObject({ kept: true, filesChanged: 1, bytesChanged: 6, bytes: 9 });
    expect(await seen(env, "claude", "sales")).toEqual({ "a.csv": "3,4,5\n", "out/b.txt": "bee" });
  });

  it("two clients with the same workspace name stay apart", async () => {
    const env = setup();
    await run(env, "claude", "notes", (dir) => writeFileSync(path.join(dir, "mine.txt"), "A"));
    expect(await seen(env, "cursor", "notes")).toEqual({});
    await run(env, "cursor", "notes", (dir) => writeFileSync(path.join(dir, "theirs.txt"), "B"));
    expect(await seen(env, "claude", "notes")).toEqual({ "mine.txt": "A" });
    expect((await env.store.list()).map((w) => [w.client, w.name])).toEqual([
      ["claude", "notes"],
      ["cursor", "notes"],
    ]);
  });

  it("a run over the size limit keeps nothing, and the workspace holds what it held", async () => {
    const env = setup({ maxBytes: 100 });
    await run(env, "c", "big", (dir) => writeFileSync(path.join(dir, "keep.txt"), "k".repeat(60)));
    const over = await run(env, "c", "big", (dir) => {
      rmSync(path.join(dir, "keep.txt"));
      writeFileSync(path.join(dir, "new.bin"), "x".repeat(101));
    });
    expect(over.problem).toBe(
      'the workspace "big" would hold 101 bytes, over its limit of 100 bytes (the "Workspace size" setting on Code Mode\'s Sandbox page): nothing this run wrote there was kept, and it holds what it held before the run.',
    );
    expect(over.report).toMatchObject({ kept: false, files: 1, bytes: 60 });
    expect(await seen(env, "c", "big")).toEqual({ "keep.txt": "k".repeat(60) });
  });

  it("a run that did not finish keeps nothing", async () => {
    const env = setup();
    const stopped = await run(env, "c", "w", (dir) => writeFileSync(path.join(dir, "half"), "x"), {
      finished: false,
      privateData: false,
    });
    expect(stopped).toMatchObject({ problem: null, report: { kept: false, files: 0 } });
    expect(await seen(env, "c", "w")).toEqual({});
  });

  it("a workspace written by a run that read private data is marked; reading alone does not mark", async () => {
    const env = setup();
    await run(env, "c", "w", (dir) => writeFileSync(path.join(dir, "a"), "1"));
    const looked = await run(env, "c", "w", () => undefined, { finished: true, privateData: true });
    expect(looked.report).toMatchObject({ kept: true, filesChanged: 0, private: false });
    const wrote = await run(env, "c", "w", (dir) => writeFileSync(path.join(dir, "b"), "2"), {
      finished: true,
      privateData: true,
    });
    expect(wrote.report.private).toBe(true);
    const next = await env.store.open("c", "w");
    expect(next.private).toBe(true);
    await next.release();
    // The mark stays through later runs that read nothing private.
    const later = await run(env, "c", "w", (dir) => writeFileSync(path.join(dir, "c"), "3"));
    expect(later.report.private).toBe(true);
  });

  it("refuses a new workspace past the per-client count, naming the setting", async () => {
    const env = setup({ perClient: 1 });
    await run(env, "c", "one", () => undefined);
    await expect(env.store.open("c", "two")).rejects.toThrow(
      /this client has 1 workspaces, the most it may have \(the "Workspaces per client" setting/,
    );
    // No folder of the refused one is left behind.
    expect(existsSync(env.store.place("c", "two").dir)).toBe(false);
    // Another client has its own count; the same name is the same workspace.
    await run(env, "d", "one", () => undefined);
    const again = await env.store.open("c", "ONE");
    expect(again.name).toBe("one");
    await again.release();
  });

  it("sweeps workspaces unused past the keep time, and only those", async () => {
    let now = new Date("2026-01-01T00:00:00Z");
    const env = setup({ keepDays: 7 }, () => now);
    await run(env, "c", "old", () => undefined);
    now = new Date("2026-01-06T00:00:00Z");
    await run(env, "c", "recent", () => undefined);
    now = new Date("2026-01-09T00:00:00Z");
    expect((await env.store.sweep()).map((w) => w.name)).toEqual(["old"]);
    expect((await env.store.list()).map((w) => w.name)).toEqual(["recent"]);
  });

  it("one run at a time: a second open waits for the first to release", async () => {
    const env = setup();
    const first = await env.store.open("c", "w");
    let second: WorkspaceSession | null = null;
    const opening = env.store.open("c", "w").then((s) => (second = s));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(second).toBeNull();
    await first.release();
    await until(() => second !== null, "the second open");
    await (await opening).release();
  });

  it("a folder left without its state is no workspace to edit, and is made anew by a run, within the count", async () => {
    const env = setup({ perClient: 1 });
    const place = env.store.place("c", "half");
    mkdirSync(place.dir, { recursive: true });
    await expect(env.store.remove("c", "half")).rejects.toThrow(/there is no workspace "half"/);
    expect(existsSync(place.lock)).toBe(false);
    const { report } = await run(env, "c", "half", (dir) =>
      writeFileSync(path.join(dir, "a"), "x"),
    );
    expect(report).toMatchObject({ name: "half", kept: true, files: 1 });
    // The count holds for such a folder too.
    mkdirSync(env.store.place("c", "other").dir, { recursive: true });
    await expect(env.store.open("c", "other")).rejects.toThrow(/this client has 1 workspaces/);
  });

  it("runs naming new workspaces at once make no more than the count", async () => {
    const env = setup({ perClient: 1 });
    const opens = await Promise.allSettled(["a", "b", "c"].map((n) => env.store.open("c", n)));
    for (const open of opens) if (open.status === "fulfilled") await open.value.release();
    expect(opens.filter((open) => open.status === "fulfilled")).toHaveLength(1);
    expect(await env.store.list("c")).toHaveLength(1);
  });

  it("a removal waiting while the workspace is removed says it is gone, rather than making it again", async () => {
    const env = setup();
    await run(env, "c", "w", () => undefined);
    const held = await env.store.open("c", "w");
    const removing = env.store.remove("c", "w");
    const waiting = env.store.remove("c", "w");
    await held.release();
    expect((await removing)?.name).toBe("w");
    await expect(waiting).rejects.toThrow(/there is no workspace "w"/);
    expect(await env.store.list("c")).toEqual([]);
  });

  it("the user puts, reads and deletes files; the size limit holds there too", async () => {
    const env = setup({ maxBytes: 10 });
    const from = path.join(tempDir("cm-ws-src-"), "f.txt");
    writeFileSync(from, "hello");
    await putWorkspaceFile(env.store, "c", "w", "data/f.txt", from, env.limits.maxBytes);
    expect((await workspaceFiles(env.store, "c", "w")).map((f) => [f.path, f.bytes])).toEqual([
      ["data/f.txt", 5],
    ]);
    expect((await readWorkspaceFile(env.store, "c", "w", "data/f.txt", 1, 3)).data.toString()).toBe(
      "ell",
    );
    writeFileSync(from, "x".repeat(11));
    await expect(
      putWorkspaceFile(env.store, "c", "w", "g.txt", from, env.limits.maxBytes),
    ).rejects.toBeInstanceOf(WorkspaceRefused);
    await deleteWorkspaceFile(env.store, "c", "w", "data");
    expect(await workspaceFiles(env.store, "c", "w")).toEqual([]);
    await expect(readWorkspaceFile(env.store, "c", "w", "data/f.txt", 0, 1)).rejects.toThrow(
      'the workspace "w" has no file "data/f.txt"',
    );
    const removed = await env.store.remove("c", "w");
    expect(removed?.name).toBe("w");
    expect(existsSync(env.store.place("c", "w").dir)).toBe(false);
  });

  it("a file read in chunks is refused once it changed, never mixed from two versions", async () => {
    const env = setup();
    const from = path.join(tempDir("cm-ws-src-"), "f.txt");
    writeFileSync(from, "a".repeat(100));
    await putWorkspaceFile(env.store, "c", "w", "f.txt", from, env.limits.maxBytes);
    const first = await readWorkspaceFile(env.store, "c", "w", "f.txt", 0, 50);
    // Another file put in makes a new version: this one is unchanged, the download goes on.
    await putWorkspaceFile(env.store, "c", "w", "g.txt", from, env.limits.maxBytes);
    const second = await readWorkspaceFile(env.store, "c", "w", "f.txt", 50, 25, first.fileId);
    expect(second.data.toString()).toBe("a".repeat(25));
    writeFileSync(from, "b".repeat(100));
    await putWorkspaceFile(env.store, "c", "w", "f.txt", from, env.limits.maxBytes);
    await expect(
      readWorkspaceFile(env.store, "c", "w", "f.txt", 75, 25, first.fileId),
    ).rejects.toThrow('"f.txt" in the workspace "w" changed while it was being read');
  });

  it("names and paths: plain only", () => {
    expect(checkWorkspaceName("sales-2026.q1")).toBe("sales-2026.q1");
    for (const bad of ["", ".hidden", "a/b", "a b", "x".repeat(65), "ü"]) {
      expect(() => checkWorkspaceName(bad)).toThrow(/workspace name/);
    }
    // Windows would make these a device, or the folder of another name.
    for (const bad of ["con", "NUL", "nul.data", "Com1", "lpt9.x", "aux", "data.", "data.."]) {
      expect(() => checkWorkspaceName(bad)).toThrow(/workspace name cannot/);
    }
    for (const fine of ["console", "com10", "nullable", "data.v2", "lpt"]) {
      expect(checkWorkspaceName(fine)).toBe(fine);
    }
    expect(workspacePathParts("/workspace/a/b.csv")).toEqual(["a", "b.csv"]);
    for (const bad of ["", "../x", "a/../b", "a//b", "a\\b"]) {
      expect(() => workspacePathParts(bad)).toThrow();
    }
  });
});

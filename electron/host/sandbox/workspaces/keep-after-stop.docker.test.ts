// A run with a workspace is answered once its code has ended, and what it left is kept once its
// container has stopped, on real containers and each runtime. Code that writes a `done` line of
// its own is answered while a thread it started goes on writing to /workspace: what that thread
// wrote is kept whole when within the limit, and nothing of the run when past it; either way the
// next run of the workspace is told. A read of the workspace made right after the answer waits
// for the keep and reads what it kept.
import path from "node:path";
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { workspaceSandbox } from "../../../../test-support/workspace-sandbox.js";
import { runPythonText } from "../../core/engine/run-python-content.js";
import { sandboxWorkspace, type WorkspaceKeepDiffered } from "../../core/engine/run-workspace.js";
import type { WorkspaceSlot } from "../../core/ports/run-types.js";
import { Sandbox } from "../sandbox.js";
import { workspaceFiles } from "./workspace-edits.js";
import { SlotRoot } from "./workspace-slots.js";
import { WorkspaceStore, type WorkspaceLimits } from "./workspace-store.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;
const MiB = 1024 * 1024;
const CLIENT = "alice";

afterAll(() => removeTempDirs());

/**
 * Code that writes `before` into /workspace/new.txt, then starts a thread that waits for
 * /workspace/go (the test puts it there once the run is answered) and runs `late`, then ends
 * the run as the host sees it (a `done` line of its own on every descriptor: the protocol pipe
 * is one of them), waits for the thread, and exits.
 */
function writesAfterItsEnd(late: string): string {
  return [
    "import os, threading, time",
    "open('/workspace/new.txt', 'w').write('before')",
    "def late():",
    "    while not os.path.exists('/workspace/go'):",
    "        time.sleep(0.01)",
    ...late.split("\n").map((line) => `    ${line}`),
    "writer = threading.Thread(target=late)",
    "writer.start()",
    'line = b\'{"type": "done", "error": null}\\n\'',
    "for fd in range(3, 64):",
    "    try:",
    "        os.write(fd, line)",
    "    except OSError:",
    "        pass",
    "writer.join()",
    "os._exit(0)",
  ].join("\n");
}

describeEachRuntime(docker, "a workspace kept after the run's answer, on %s", (runtime) => {
  let sandbox: Sandbox;
  let store: WorkspaceStore;
  let close = (): Promise<void> => Promise.resolve();
  const limits: WorkspaceLimits = { maxBytes: 64 * MiB, perClient: 10, keepDays: 7 };

  beforeAll(async () => {
    ({ sandbox, store, close } = await workspaceSandbox(fx!, runtime, limits, "cm-wskeep-"));
  });

  afterAll(() => close());

  /**
   * One run of workspace `name`, as the engine makes it: answered, then the workspace released
   * without waiting (it is given back once the keep is done). `checked` is told of the slot
   * once the run has been looked at for its answer; `kept` settles once the keep is done.
   */
  async function run(name: string, code: string, checked?: (slot: WorkspaceSlot) => void) {
    const session = await store.open(CLIENT, name);
    const differed: WorkspaceKeepDiffered[] = [];
    const inner = sandboxWorkspace(
      session,
      () => false,
      (event) => differed.push(event),
    );
    let keepDone = false;
    const workspace = {
      ...inner,
      check: async (slot: WorkspaceSlot, finished: boolean) => {
        const found = await inner.check(slot, finished);
        checked?.(slot);
        const keep = found.keep;
        if (keep === null) return found;
        return {
          ...found,
          keep: (after: WorkspaceSlot, stopped: boolean) =>
            keep(after, stopped).finally(() => (keepDone = true)),
        };
      },
    };
    const result = await sandbox.run({ code, workspace });
    const kept = session.release();
    return { result, kept, differed, keepDone: () => keepDone };
  }

  /** What the next run of `name` finds in /workspace, and what it is told. */
  async function next(name: string) {
    const { result, kept } = await run(
      name,
      "import os\nfor f in sorted(os.listdir('/workspace')):\n    print(f, os.path.getsize('/workspace/' + f))",
    );
    await kept;
    return result;
  }

  const go = (slot: WorkspaceSlot): void => writeFileSync(path.join(slot.workspace, "go"), "");

  it("a run that changed nothing after its end is kept as answered, and no one is told", async () => {
    const { result, kept, differed } = await run(
      "plain",
      "open('/workspace/a.txt', 'w').write('one')",
    );
    expect(result.workspace).toMatchObject({ kept: true, files: 1, bytes: 3 });
    await kept;
    expect(differed).toEqual([]);
    const after = await next("plain");
    expect(after.stdout).toBe("a.txt 3\n");
    expect(after.workspace?.notice).toBeUndefined();
  });

  it("a thread writing past the limit after the run's end: nothing of that run is kept, and the next run is told", async () => {
    await (
      await run("over", "open('/workspace/keep.txt', 'w').write('kept')")
    ).kept;
    limits.maxBytes = 1 * MiB;
    let answer;
    try {
      answer = await run(
        "over",
        writesAfterItsEnd(
          "with open('/workspace/big.bin', 'wb') as f:\n    for _ in range(3):\n        f.write(b'x' * (1024 * 1024))",
        ),
        go,
      );
      // The answer came before the thread wrote: it says the run's writes were kept.
      expect(answer.result.error).toBeNull();
      expect(answer.result.workspace).toMatchObject({ kept: true, files: 2, bytes: 10 });
      await answer.kept;
    } finally {
      limits.maxBytes = 64 * MiB;
    }
    expect(answer.differed).toHaveLength(1);
    expect(answer.differed[0]).toMatchObject({ kept: false, now: { files: 1 } });
    const after = await next("over");
    // Exactly what it held before that run.
    expect(after.stdout).toBe("keep.txt 4\n");
    expect(after.workspace?.notice).toContain("after that run ended");
    expect(after.workspace?.notice).toContain("over its limit of 1 MiB");
    expect(after.workspace?.notice).toContain("nothing of that run was kept");
    expect(runPythonText(after)).toContain(`[workspace: ${after.workspace?.notice}]`);
    // Told once.
    expect((await next("over")).workspace?.notice).toBeUndefined();
  });

  it("a thread writing a little after the run's end: kept whole, and the next run is told", async () => {
    const answer = await run(
      "small",
      writesAfterItsEnd("open('/workspace/late.txt', 'w').write('late')"),
      go,
    );
    expect(answer.result.error).toBeNull();
    expect(answer.result.workspace).toMatchObject({ kept: true, files: 1, bytes: 6 });
    await answer.kept;
    expect(answer.differed).toHaveLength(1);
    expect(answer.differed[0]).toMatchObject({ kept: true, now: { files: 3 } });
    const after = await next("small");
    expect(after.stdout).toBe("go 0\nlate.txt 4\nnew.txt 6\n");
    expect(after.workspace?.notice).toContain("what it held then was kept");
  });

  it("closing the sandbox right after an answer waits for the run's keep", async () => {
    const own = new Sandbox({
      ...{ engine: fx!.engine, image: fx!.image, owner: testOwner(), poolSize: 0, runtime },
      slots: new SlotRoot(path.join(tempDir("cm-wskeep-close-"), "slots")),
      deadlineSeconds: 120,
    });
    const session = await store.open(CLIENT, "closing");
    const workspace = sandboxWorkspace(session, () => false);
    const result = await own.run({ code: "open('/workspace/a.txt', 'w').write('one')", workspace });
    expect(result.workspace).toMatchObject({ kept: true, files: 1 });
    // As the engine does: given back without waiting; then the host shuts down.
    void session.release();
    await own.close();
    expect(existsSync(store.place(CLIENT, "closing").lock)).toBe(false);
    expect((await workspaceFiles(store, CLIENT, "closing")).map((f) => f.path)).toEqual(["a.txt"]);
  });

  it("closing the sandbox while a run's workspace is being filled removes its container first", async () => {
    const own = new Sandbox({
      ...{ engine: fx!.engine, image: fx!.image, owner: testOwner(), poolSize: 0, runtime },
      slots: new SlotRoot(path.join(tempDir("cm-wsfill-close-"), "slots")),
      deadlineSeconds: 120,
    });
    const before = await leftoverContainers(fx!.docker);
    const session = await store.open(CLIENT, "filling");
    const inner = sandboxWorkspace(session, () => false);
    let filling!: () => void;
    const fillBegan = new Promise<void>((resolve) => (filling = resolve));
    let letFill!: () => void;
    const fillGate = new Promise<void>((resolve) => (letFill = resolve));
    const workspace = {
      ...inner,
      fill: async (slot: WorkspaceSlot) => {
        filling();
        await fillGate;
        await inner.fill(slot);
      },
    };
    const running = own.run({ code: "print(1)", workspace }).catch((error: unknown) => error);
    await fillBegan;
    await own.close();
    // The run's container went with the sandbox, not after it.
    expect(await leftoverContainers(fx!.docker)).toEqual(before);
    letFill();
    const result = await running;
    expect(
      result instanceof Error || (result as { stopped: unknown }).stopped === "cancelled",
    ).toBe(true);
    await session.release();
  });

  it("a read of the workspace right after the answer waits for the keep, and reads what it kept", async () => {
    await (
      await run("read", "open('/workspace/old.txt', 'w').write('old')")
    ).kept;
    const answer = await run(
      "read",
      "import os\nos.remove('/workspace/old.txt')\nopen('/workspace/new.txt', 'w').write('new')",
    );
    // Read as the Sandbox page and `codemode workspace list` do, before the keep is done.
    expect(answer.keepDone()).toBe(false);
    const [files, listed] = await Promise.all([
      workspaceFiles(store, CLIENT, "read"),
      store.list(CLIENT),
    ]);
    // Read before the keep was done, they read what it kept (the run before it left old.txt).
    expect(files.map((f) => f.path)).toEqual(["new.txt"]);
    expect(listed.find((w) => w.name === "read")).toMatchObject({ files: 1, bytes: 3 });
    await answer.kept;
  });
});

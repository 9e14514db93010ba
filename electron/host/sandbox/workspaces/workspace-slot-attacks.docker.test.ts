// What the sandboxed code can leave in its slot to get past the host's walks of it, run for real
// on each runtime: file names that are not UTF-8 (a string path names no file, so the size
// watch saw nothing under them and the keep step failed on them) and disk space allocated past
// a file's end (its size says 0).
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  itOnlyOn,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { until } from "../../../../test-support/wait.js";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { sandboxWorkspace } from "../../core/engine/run-workspace.js";
import { Sandbox } from "../sandbox.js";
import { SlotRoot } from "./workspace-slots.js";
import { WorkspaceStore, type WorkspaceLimits } from "./workspace-store.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;
const MiB = 1024 * 1024;

/** How long the attacking code holds its bytes in the slot if nothing stops it. */
const HOLD_SECONDS = 40;

afterAll(() => removeTempDirs());

describeEachRuntime(docker, "slot attacks on %s", (runtime) => {
  const runcOnly = itOnlyOn(runtime, "runc");
  let sandbox: Sandbox;
  let store: WorkspaceStore;
  let slotsRoot: string;
  const limits: WorkspaceLimits = { maxBytes: 1 * MiB, perClient: 10, keepDays: 7 };

  beforeAll(() => {
    const root = tempDir("cm-wsattack-");
    slotsRoot = path.join(root, "slots", String(process.pid));
    store = new WorkspaceStore(path.join(root, "workspaces"), () => limits);
    sandbox = new Sandbox({
      ...{ engine: fx!.engine, image: fx!.image, owner: testOwner(), poolSize: 1, runtime },
      slots: new SlotRoot(path.dirname(slotsRoot)),
      deadlineSeconds: 120,
    });
  });

  afterAll(async () => {
    await sandbox.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  async function run(name: string, code: string) {
    const session = await store.open("mallory", name);
    const workspace = sandboxWorkspace(session, () => false);
    try {
      return await sandbox.run({ code, workspace });
    } finally {
      await session.release();
    }
  }

  const hold = `import time\nfor _ in range(${HOLD_SECONDS * 10}):\n    time.sleep(0.1)\nprint('never stopped')`;

  it("a file whose name is not UTF-8 is measured while the run writes it", async () => {
    await run("named", "open('/workspace/keep.txt','w').write('before')");
    const result = await run(
      "named",
      `import os\nos.mkdir(b'/workspace/d\\xff')\nwith open(b'/workspace/d\\xff/f\\xfe', 'wb') as f:\n    f.write(b'x' * (8 * 1024 * 1024))\n${hold}`,
    );
    expect(result.stdout).not.toContain("never stopped");
    expect(result.stopped).toBe("workspace_limit");
    expect(result.error).toContain('"named"');
    const after = await run("named", "import os\nprint(sorted(os.listdir(b'/workspace')))");
    expect(after.stdout).toBe("[b'keep.txt']\n");
  }, 120_000);

  it("disk space allocated past a file's end counts toward the limit", async () => {
    // fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 64 MiB): the blocks are taken, the size stays 0.
    const result = await run(
      "allocated",
      `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]\nfd = os.open('/workspace/hole', os.O_WRONLY | os.O_CREAT)\nrc = libc.fallocate(fd, 1, 0, 64 * 1024 * 1024)\nprint('allocated' if rc == 0 else 'refused %d' % ctypes.get_errno(), flush=True)\nif rc == 0:\n${hold
        .split("\n")
        .map((line) => `    ${line}`)
        .join("\n")}`,
    );
    // gVisor may refuse the mode outright: then there is nothing to measure.
    if (result.stdout.startsWith("refused")) {
      expect(result.error).toBeNull();
      return;
    }
    expect(result.stdout).toBe("allocated\n");
    expect(result.stopped).toBe("workspace_limit");
  }, 120_000);

  /** No slot a run opened is left (the warm container's, never opened, has no `ws`). */
  const slotsGone = () =>
    readdirSync(slotsRoot).every((slot) => !existsSync(path.join(slotsRoot, slot, "ws")));

  /** Code making a tree deeper than the host's paths can name (relative, a level at a time). */
  const deep = (levels: number, then: string) =>
    `import os\nos.chdir('/workspace')\nfor i in range(${levels}):\n    os.mkdir('d' * 250)\n    os.chdir('d' * 250)\n${then}`;

  it("a tree deeper than the host's paths is measured while the run writes it", async () => {
    const result = await run(
      "deep",
      deep(20, `with open('big', 'wb') as f:\n    f.write(b'x' * (8 * 1024 * 1024))\n${hold}`),
    );
    expect(result.stdout).not.toContain("never stopped");
    expect(result.stopped).toBe("workspace_limit");
    expect(result.error).toContain('"deep" held a path longer than 1024 characters');
    await until(slotsGone, "the run's slot removed");
  }, 120_000);

  it("a run leaving a tree deeper than a workspace path may be is refused, and its slot goes", async () => {
    limits.maxBytes = 64 * MiB;
    try {
      await run("deeper", "open('/workspace/keep.txt','w').write('before')");
      const result = await run("deeper", deep(20, "open('f', 'w').write('x')"));
      // Refused either by the keep step or, when a slow machine keeps the run going until the
      // size watch walks the slot, by the watch: both name the limit and keep nothing.
      expect(result.error).toMatch(/"deeper" (would hold|held) a path longer than 1024 characters/);
      expect(result.workspace).toMatchObject({ name: "deeper", kept: false, files: 1 });
      await until(slotsGone, "the run's slot removed");
    } finally {
      limits.maxBytes = 1 * MiB;
    }
  }, 120_000);

  // gVisor makes folders so slowly that a run's deadline comes first (the attack needs runc).
  runcOnly(
    "a run making more entries than a workspace may hold is stopped while it makes them",
    async () => {
      limits.maxBytes = 64 * MiB;
      try {
        const result = await run(
          "many",
          `import os\nos.mkdir('/workspace/many')\nfor i in range(${WORKSPACE_LIMITS.maxEntries + 1}):\n    os.mkdir('/workspace/many/%d' % i)\nprint('made', flush=True)\n${hold}`,
        );
        expect(result.stdout).not.toContain("never stopped");
        expect(result.stopped).toBe("workspace_limit");
        expect(result.error).toContain(
          `"many" held more than ${WORKSPACE_LIMITS.maxEntries} files and folders`,
        );
        // A hundred thousand folders take a while to remove on a loaded machine.
        await until(slotsGone, "the run's slot removed", 120_000);
      } finally {
        limits.maxBytes = 1 * MiB;
      }
    },
    300_000,
  );

  it("a run leaving a file whose name is not UTF-8 keeps its other files", async () => {
    limits.maxBytes = 64 * MiB;
    try {
      const result = await run(
        "odd",
        "open('/workspace/a.txt','w').write('kept')\nopen(b'/workspace/b\\xff.txt','w').write('left out')",
      );
      expect(result.error).toBeNull();
      expect(result.workspace).toMatchObject({ name: "odd", kept: true, files: 1 });
      const after = await run("odd", "print(open('/workspace/a.txt').read())");
      expect(after.stdout).toBe("kept\n");
    } finally {
      limits.maxBytes = 1 * MiB;
    }
  }, 120_000);
});

// The host's side of workspace runs, run by the slot-owner test as an ordinary user (a uid of
// its own, the Docker socket's group): what a sandbox leaves in a slot is then owned by a user
// the host is not, as on a Linux machine where the app runs as its user with rootful Docker.
// Prints one JSON line of what it saw. Steps:
// - killed: a run leaves folders shut to the host and is stopped; its slot must go.
// - measured: a run writes past the size limit in a folder shut to the host; it is stopped.
// - listable: the same in a folder the host may list but not search (0744); it is stopped.
// - kept: a run leaves them shut and keeps its runner from opening them again; they are kept.
// - sweep: a dead process's slot shut to the host (made by the test) must go at start.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { sandboxWorkspace } from "../electron/host/core/engine/run-workspace.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SlotRoot } from "../electron/host/sandbox/workspaces/workspace-slots.js";
import { WorkspaceStore } from "../electron/host/sandbox/workspaces/workspace-store.js";
import type { SandboxRuntime } from "../shared/settings.js";
import { until } from "./wait.js";

/** What the attacking code runs first: folders and a file the host's user is shut out of. */
const LEAVE_SHUT = `import os, tempfile
def leave(top):
    made = [tempfile.mkdtemp(dir=top)]
    for name, mode in (("shut", 0o700), ("unwritable", 0o500), ("closed", 0o000)):
        d = os.path.join(top, name)
        os.mkdir(d)
        os.mkdir(os.path.join(d, "inner"))
        for i in range(3):
            for where in (d, os.path.join(d, "inner"), made[0]):
                with open(os.path.join(where, "f%d" % i), "w") as f:
                    f.write("x" * 1000)
        os.chmod(os.path.join(d, "inner"), mode)
        os.chmod(d, mode)
        made.append(d)
    with open(os.path.join(top, "zero"), "w") as f:
        f.write("zero")
    os.chmod(os.path.join(top, "zero"), 0)
    return made
made = leave("/workspace")
`;

interface Args {
  step: "killed" | "measured" | "listable" | "kept" | "sweep";
  image: string;
  runtime: SandboxRuntime;
  root: string;
  /** The install the containers are labelled with (the tests'). */
  install: string;
}

const args = JSON.parse(process.argv[2] ?? "{}") as Args;
const status = await findDocker();
if (status.state !== "ready") throw new Error(status.message);
const slotsRoot = path.join(args.root, "slots");
const slots = new SlotRoot(slotsRoot);
const store = new WorkspaceStore(path.join(args.root, "workspaces"), () => ({
  maxBytes: 64 * 1024 * 1024,
  perClient: 10,
  keepDays: 7,
}));
await slots.sweep();
const sandbox = new Sandbox({
  ...{ engine: status.engine, image: args.image, owner: currentOwner(args.install) },
  ...{ poolSize: args.step === "sweep" ? 0 : 1, runtime: args.runtime, slots },
  deadlineSeconds: 120,
});

async function run(code: string, stop?: AbortSignal) {
  const session = await store.open("alice", "shut");
  const workspace = sandboxWorkspace(session, () => false);
  try {
    return await sandbox.run({ code, workspace }, { signal: stop });
  } catch (error) {
    return { error: `threw: ${String(error)}`, stopped: null, stdout: "", workspace: null };
  } finally {
    await session.release();
  }
}

/** The slots of this process that a run opened (a warm container's, never opened, has no `ws`). */
const openedSlots = (): number => {
  const mine = path.join(slotsRoot, String(process.pid));
  return readdirSync(mine).filter((slot) => readdirSync(path.join(mine, slot)).includes("ws"))
    .length;
};

const seen: Record<string, unknown> = {};
try {
  if (args.step === "killed") {
    const stop = new AbortController();
    const ran = run(
      `${LEAVE_SHUT}open("/workspace/ready", "w").close()\nimport time\nwhile True:\n    for d in made:\n        os.chmod(d, 0o700)\n    time.sleep(0.05)\n`,
      stop.signal,
    );
    // Stopped once it has shut its folders (the size watch may stop it first).
    const mine = path.join(slotsRoot, String(process.pid));
    const ready = (): boolean =>
      existsSync(mine) &&
      readdirSync(mine).some((slot) => existsSync(path.join(mine, slot, "ws", "ready")));
    await Promise.race([until(ready, "the run's folders made", 60_000), ran]);
    stop.abort();
    const result = await ran;
    await sandbox.settle();
    Object.assign(seen, { error: result.error, stopped: result.stopped });
    seen.openedSlotsLeft = openedSlots();
  } else if (args.step === "measured" || args.step === "listable") {
    // More than the workspace's 64 MiB, in a folder tempfile.mkdtemp shuts to others (or one
    // they may list but not search); the runner is kept from opening it after the code, so
    // only a measure while it runs sees it.
    const shut = args.step === "measured" ? "" : "\nos.chmod(d, 0o744)";
    const result = await run(
      `import os, tempfile, time\nd = tempfile.mkdtemp(dir="/workspace")${shut}\nwith open(d + "/big", "wb") as f:\n    f.write(b"x" * (80 * 1024 * 1024))\nos.chmod = lambda *a, **k: None\nfor _ in range(400):\n    time.sleep(0.1)\nprint("never stopped")`,
    );
    await sandbox.settle();
    Object.assign(seen, { error: result.error, stopped: result.stopped, stdout: result.stdout });
    seen.openedSlotsLeft = openedSlots();
  } else if (args.step === "kept") {
    // The runner opens what the run made after the code; the code turns that into nothing.
    const result = await run(`${LEAVE_SHUT}os.chmod = lambda *a, **k: None\nprint("done")`);
    await sandbox.settle();
    Object.assign(seen, { error: result.error, workspace: result.workspace });
    const after = await run(
      `import os\nprint(sorted(os.listdir("/workspace")), sorted(os.listdir("/workspace/shut/inner")))`,
    );
    seen.after = after.stdout;
    await sandbox.settle();
    seen.openedSlotsLeft = openedSlots();
  } else {
    await sandbox.settle();
    seen.left = readdirSync(slotsRoot).filter((owner) => owner !== String(process.pid));
  }
} finally {
  await sandbox.close();
}
process.stdout.write(`${JSON.stringify(seen)}\n`);
status.engine.close();

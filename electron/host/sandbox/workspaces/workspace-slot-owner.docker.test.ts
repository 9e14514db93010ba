// A sandbox's files in a slot belong to its user (65534), not to the host's: where the host runs
// as an ordinary user (rootful Docker; rootless Podman maps 65534 to a uid of its own), a run
// that leaves a folder shut to others (0700, as tempfile.mkdtemp makes; 0500; 0000) shut the
// host out of it, and a slot the host cannot remove is disk lost for good. The tests run as
// root, so the host's side runs here in a child process as an ordinary user that owns the slot
// folders and may use the engine (its socket's group), against real containers.
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  TEST_HOME_ID,
  testOwner,
} from "../../../../test-support/docker.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { sandboxContainerSpec } from "../containers/container-spec.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..", "..", "..");
/** The host's user in these tests: not root, not the sandbox's user. */
const HOST_UID = 1000;
/** A pid no process has (past Linux's pid_max): the owner of a crashed host's slots. */
const DEAD_PID = 4_194_305;

afterAll(() => removeTempDirs());

/** A folder for the host's user, and that user's group: the engine socket's. */
function userRoot(): { root: string; gid: number } {
  const gid = statSync("/var/run/docker.sock").gid;
  const root = tempDir("cm-slotowner-");
  chownSync(root, HOST_UID, gid);
  return { root, gid };
}

/** Runs test-support/slot-host-as-user.ts as the host's user; what it printed. */
async function asUser(
  step: string,
  runtime: SandboxRuntime,
  root: string,
  gid: number,
): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    [
      ...["--import", "tsx", path.join(repo, "test-support", "slot-host-as-user.ts")],
      JSON.stringify({ step, runtime, root, image: fx!.image, install: TEST_HOME_ID }),
    ],
    {
      cwd: repo,
      uid: HOST_UID,
      gid,
      env: { PATH: process.env.PATH, HOME: root, TMPDIR: root },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // "close", not "exit": at its exit the line it printed last may still be in the pipe.
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the host's side failed (${code}): ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

describeEachRuntime(docker, "slots shut to the host's user on %s", (runtime) => {
  afterAll(async () => {
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("a run stopped after shutting folders to the host has its slot removed", async () => {
    const { root, gid } = userRoot();
    const seen = await asUser("killed", runtime, root, gid);
    expect(seen.openedSlotsLeft).toBe(0);
    expect(String(seen.error)).not.toContain(root);
  }, 180_000);

  // "listable": a folder the host may list but not search (0744), whose files it cannot stat.
  it.each(["measured", "listable"])(
    "a run writing past its limit in a folder shut to the host (%s) is measured and stopped",
    async (step) => {
      const { root, gid } = userRoot();
      const seen = await asUser(step, runtime, root, gid);
      expect(seen.stopped).toBe("workspace_limit");
      expect(seen.stdout).not.toContain("never stopped");
      expect(seen.error).toContain('"shut" went over its limit of 64 MiB');
      expect(seen.openedSlotsLeft).toBe(0);
    },
    180_000,
  );

  it("a run that keeps its runner from opening what it shut is kept, naming no host path", async () => {
    const { root, gid } = userRoot();
    const seen = await asUser("kept", runtime, root, gid);
    expect(seen.error).toBeNull();
    // Three folders of six files, three in the temporary folder, and `zero`.
    expect(seen.workspace).toMatchObject({ name: "shut", kept: true, files: 22 });
    expect(seen.after).toMatch(
      /^\['closed', 'shut', 'tmp\w+', 'unwritable', 'zero'\] \['f0', 'f1', 'f2'\]\n$/,
    );
    expect(seen.openedSlotsLeft).toBe(0);
  }, 180_000);

  it("the start sweep removes a crashed host's slot shut to the host", async () => {
    const { root, gid } = userRoot();
    const slot = path.join(root, "slots", String(DEAD_PID), "0123456789abcdef");
    mkdirSync(path.join(slot, "ws"), { recursive: true, mode: 0o777 });
    for (const dir of [path.dirname(path.dirname(slot)), path.dirname(slot), slot]) {
      chownSync(dir, HOST_UID, gid);
    }
    chownSync(path.join(slot, "ws"), HOST_UID, gid);
    chmodSync(path.join(slot, "ws"), 0o777);
    await leaveShut(runtime, slot);
    // A host whose umask is 077 makes its own folder of slots so.
    chmodSync(path.dirname(slot), 0o700);
    const seen = await asUser("sweep", runtime, root, gid);
    expect(seen.left).toEqual([]);
    expect(existsSync(path.join(root, "slots", String(DEAD_PID)))).toBe(false);
  }, 180_000);
});

/** A sandbox (the hardened spec, its own code) that leaves in `slot` what a killed run would. */
async function leaveShut(runtime: SandboxRuntime, slot: string): Promise<void> {
  const spec = sandboxContainerSpec(fx!.image, "x", testOwner(), runtime, false, slot);
  const code = `import os\nos.makedirs("/codemode-slot/ws/shut/inner")\nfor d in ("/codemode-slot/ws/shut/inner", "/codemode-slot/ws/shut"):\n    open(d + "/f", "w").write("x")\n    os.chmod(d, 0o700 if d.endswith("inner") else 0)\n`;
  const container = await fx!.docker.createContainer({
    ...spec,
    Cmd: ["python3", "-I", "-c", code],
    OpenStdin: false,
    StdinOnce: false,
    AttachStdin: false,
  });
  try {
    await container.start();
    const exit = (await container.wait()) as { StatusCode: number };
    expect(exit.StatusCode).toBe(0);
  } finally {
    await container.remove({ force: true });
  }
}

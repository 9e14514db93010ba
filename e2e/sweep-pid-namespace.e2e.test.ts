// The start-up sweep against the attack as it happens: two hosts in different pid namespaces
// (two dev containers, two CI runners) share one Docker engine and one data directory. The second
// runs `codemode run` on a long program inside its own pid namespace (made with unshare, so
// its pid means nothing, and is dead, in ours). The first then starts `codemode run` too,
// whose start-up sweep must leave the second's live container alone: its run finishes.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidAlive } from "../electron/host/util/process-place.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { assertBuilt, childEnv, CODEMODE_BIN, repoRoot } from "../test-support/processes.js";
import { runCli } from "../test-support/daemon.js";

const fx = await dockerOrSkip();
const home = mkdtempSync(path.join(os.tmpdir(), "codemode-pidns-"));
const code = path.join(home, "slow.py");
const started: string[] = [];

beforeAll(() => {
  assertBuilt();
  writeFileSync(code, "import time\ntime.sleep(6)\nprint('survived')\n");
});

afterAll(async () => {
  for (const id of started) {
    await fx?.docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);
  }
  rmSync(home, { recursive: true, force: true });
});

/** A pid no process has in this namespace, for the other namespace to hand out. */
function pidDeadHere(): number {
  for (let pid = 40_000 + Math.floor(Math.random() * 10_000); ; pid++) {
    if (!pidAlive(pid)) return pid;
  }
}

interface Other {
  pid: number;
  result: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `codemode run slow.py` in a new pid namespace, as the process with pid `pid` there. */
function runInOtherPidNamespace(pid: number): Other {
  const node = `'${process.execPath}' '${CODEMODE_BIN}' run --timeout 30 '${code}'`;
  // The shell sets the namespace's next pid, so the run gets exactly `pid` in it.
  const script = `echo ${pid - 1} > /proc/sys/kernel/ns_last_pid && ${node}`;
  const child = spawn("unshare", ["--pid", "--fork", "--mount-proc", "sh", "-c", script], {
    cwd: repoRoot,
    env: childEnv(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  return {
    pid,
    result: new Promise((resolve) =>
      child.on("close", (exit) => resolve({ code: exit, stdout, stderr })),
    ),
  };
}

describe.skipIf(!fx)("a host in another pid namespace sharing the engine", () => {
  it("keeps its live container when this host's start-up sweep runs", async () => {
    const docker = fx!.docker;
    const other = runInOtherPidNamespace(pidDeadHere());
    // Its container exists once the run is under way.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const list = await docker.listContainers({
        filters: { label: ["codemode.sandbox=1", `codemode.owner-pid=${other.pid}`] },
      });
      if (list.length > 0) {
        started.push(...list.map((c) => c.Id));
        break;
      }
      if (Date.now() > deadline) throw new Error(`the other host's run did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pidAlive(other.pid)).toBe(false);

    // This host starts on the same data directory: its sweep sees the other's container.
    const ours = await runCli(home, ["run", "--timeout", "20", code], { timeoutMs: 60_000 });
    expect(ours.code, ours.stderr).toBe(0);

    const theirs = await other.result;
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(JSON.parse(theirs.stdout)).toMatchObject({
      exit_code: 0,
      stdout: "survived\n",
      error: null,
    });
  });
});

// When the audit log cannot be written, runs are refused until it can again; then
// the failure clears by itself and the log says what happened. A real daemon, a real file-size
// limit on its process (as a full disk would), real Docker.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  auditEntries,
  auditFiles,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
  type DaemonProcess,
} from "../test-support/daemon.js";
import { dirBytes } from "../test-support/dir-size.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { until } from "../test-support/wait.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("audit log append failure", () => {
  const home = makeHome("codemode-recover-");
  let daemon: DaemonProcess;
  let shim: McpSession;
  // Every call that reached the toy server, one line each (its own file: the daemon's limit
  // on file size does not reach the server's process).
  const callLog = path.join(home, "toy-calls.jsonl");
  const echoCalls = (): number =>
    existsSync(callLog)
      ? readFileSync(callLog, "utf8")
          .split("\n")
          .filter((line) => line.includes('"echo"')).length
      : 0;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer({ env: { TOY_CALL_LOG: callLog } }) });
    daemon = await startDaemon(home);
    shim = await connectShim(home, { name: "recover", version: "1" });
    await shim.run("print(1)");
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  it("run-cost: runs are refused while appends fail, and resume with an audit_recovered entry once they work", async () => {
    // The log's file may grow no more: every append now fails (EFBIG), as on a full disk.
    const size = dirBytes(`${home}/audit`);
    expect(auditFiles(home)).toHaveLength(1);
    execFileSync("prlimit", ["--pid", String(daemon.pid), `--fsize=${size}:unlimited`]);
    // This run's own entries cannot be written; the next run is refused.
    await shim.run("print(2)").catch(() => undefined);
    await expect(shim.run("print(3)")).rejects.toThrow(/audit log cannot be written/);

    execFileSync("prlimit", ["--pid", String(daemon.pid), "--fsize=unlimited:unlimited"]);
    const result = await shim.run("print(4)");
    expect(result.stdout).toBe("4\n");
    const recovered = auditEntries(home, "audit_recovered");
    expect(recovered).toHaveLength(1);
    expect(recovered[0]?.lost).toBeGreaterThanOrEqual(1);
    expect(recovered[0]?.error).toMatch(/EFBIG|too large/i);
    const verify = await runCli(home, ["audit", "verify"]);
    expect(verify.code).toBe(0);
  }, 120_000);

  it("run-cost: a run's calls stop going out once the log fails under it, none unlogged", async () => {
    const size = dirBytes(`${home}/audit`);
    const before = echoCalls();
    // Calls one after another, paced; the loop ends after three refusals, else after 40 calls.
    const running = shim
      .run(
        [
          "import asyncio",
          "sent, refused = 0, []",
          "for i in range(40):",
          "    try:",
          "        await toy.echo(text=str(i))",
          "        sent += 1",
          "    except ToolError as e:",
          "        refused.append(str(e))",
          "        if len(refused) == 3:",
          "            break",
          "    await asyncio.sleep(0.2)",
          "print(sent, len(refused))",
          "print(refused[0] if refused else 'none')",
        ].join("\n"),
        { timeout_s: 60 },
      )
      .catch((error: unknown) => error);
    await until(() => echoCalls() >= before + 3, "the run's first calls reached the server");
    execFileSync("prlimit", ["--pid", String(daemon.pid), `--fsize=${size}:unlimited`]);
    const result = await running;
    execFileSync("prlimit", ["--pid", String(daemon.pid), "--fsize=unlimited:unlimited"]);
    // Before, every one of the 40 went out while their entries were lost.
    expect(echoCalls() - before).toBeLessThan(40);
    if (!(result instanceof Error)) {
      const [counts, first] = (result as { stdout: string }).stdout.split("\n");
      expect(counts?.split(" ")[1]).toBe("3");
      expect(first).toContain("audit log cannot be written");
    }
    // Runs work again once the log does.
    expect((await shim.run("print(5)")).stdout).toBe("5\n");
  }, 120_000);
});

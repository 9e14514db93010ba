// When the audit log cannot be written, runs are refused until it can again; then
// the failure clears by itself and the log says what happened. A real daemon, a real file-size
// limit on its process (as a full disk would), real Docker.

import { execFileSync } from "node:child_process";
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

const fx = await dockerOrSkip();

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("audit log append failure", () => {
  const home = makeHome("codemode-recover-");
  let daemon: DaemonProcess;
  let shim: McpSession;

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
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
});

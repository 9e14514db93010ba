// What survives when things go wrong around the host: a daemon killed with SIGKILL in the
// middle of a busy run, a result that reaches its client before its audit entry is written,
// and a servers.json that no longer parses.

import { appendFile, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../shared/run-result.js";
import type { AuditEntryInput } from "../shared/audit-entry.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  api,
  assertHostBuilt,
  auditEntries,
  auditFiles,
  cleanUpHosts,
  connectShim,
  homeContainers,
  makeHome,
  pidAlive,
  readAudit,
  runCli,
  startDaemon,
  startHostInProcess,
  stopHostInProcess,
  toyServer,
  untilServerReady,
  writeServers,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

/**
 * One run of 50 toy__add calls, printing their total (sum of i + 1 for i < 50 = 1275). The
 * short pauses stretch a run to about half a second, so the kill below lands mid-run even
 * on a loaded machine.
 */
const FIFTY_CALLS = `import asyncio, json
total = 0
for i in range(50):
    total += json.loads(await toy__add({"a": i, "b": 1}))["sum"]
    await asyncio.sleep(0.01)
print(total)`;

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts(fx?.docker);
});

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// the runs here need the engine and the sandbox image.
describe.skipIf(!fx)("a daemon killed with SIGKILL while writing the audit log", () => {
  it("loses no acknowledged run, leaves a chain that verifies, and a new daemon reports the torn line and continues the chain", async () => {
    const docker = fx!.docker;
    const home = makeHome();
    writeServers(home, { toy: toyServer() });
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "loader", version: "1" });

    // Three runs of 50 calls, one after another; the daemon dies early in the second.
    const acknowledged: RunResult[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) acknowledged.push(await shim.run(FIFTY_CALLS));
    })();
    loop.catch(() => undefined);
    await until(
      () => auditEntries(home, "call", "loader").length >= 55,
      "the second run's calls to be under way",
      30_000,
    );
    const containersAtKill = (await homeContainers(docker, home)).map((c) => c.id);
    await daemon.kill();
    await expect(loop).rejects.toThrow();
    // The client leaves: its shim would otherwise reconnect to the next daemon and add its
    // own entries to the log this test counts.
    await shim.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(1);
    expect(acknowledged.length).toBeLessThan(3);
    for (const result of acknowledged) expect(result.stdout).toBe("1275\n");

    // Every run whose result reached the client is whole in the log: started, 50 calls,
    // finished. The run cut short has its start and some of its calls, in order.
    const started = auditEntries(home, "run_started", "loader");
    const finished = auditEntries(home, "run_finished", "loader");
    const calls = auditEntries(home, "call", "loader");
    for (const run of started.slice(0, acknowledged.length)) {
      expect(finished.find((f) => f.runId === run.runId)).toMatchObject({ calls: 50, error: null });
      const ofRun = calls.filter((c) => c.runId === run.runId);
      expect(ofRun).toHaveLength(50);
      expect(ofRun.every((c) => c.decision === "allowed")).toBe(true);
    }
    expect(started.length).toBe(acknowledged.length + 1);
    const cut = started.at(-1)!;
    expect(calls.filter((c) => c.runId === cut.runId).length).toBeGreaterThan(0);
    // On a loaded machine the kill can land after the cut run's end was logged but before its
    // answer reached the client: then its end is whole, never half-written.
    const cutEnd = finished.find((f) => f.runId === cut.runId);
    if (cutEnd) expect(cutEnd).toMatchObject({ calls: 50, error: null });

    const verified = await runCli(home, ["audit", "verify"]);
    expect(verified.stdout).toMatch(/^ok: /);
    expect(verified.code).toBe(0);
    const lastSeq = readAudit(home).at(-1)!.seq;

    // A write the kill cut in half looks like this: the start of a line, no newline. verify
    // allows it at the very end and says so.
    const [newest] = auditFiles(home).slice(-1);
    const torn = `{"seq":${lastSeq + 1},"ts":"2030-01-01T00:00:00.000Z","prev":"ab`;
    await appendFile(newest!, torn);
    const withTorn = await runCli(home, ["audit", "verify"]);
    expect(withTorn.code).toBe(0);
    expect(withTorn.stdout).toContain("unfinished");

    // The next daemon takes over the stale lock and socket, sweeps the dead one's
    // containers, sets the torn bytes aside (saying where), and chains on from the last
    // good entry.
    const next = await startDaemon(home);
    expect(next.stderr()).toMatch(/last line was cut off by a crash; its \d+ bytes were kept in /);
    const tornFiles = (await readdir(path.join(home, "audit"))).filter((n) => n.endsWith(".torn"));
    expect(tornFiles).toHaveLength(1);
    expect(await readFile(path.join(home, "audit", tornFiles[0]!), "utf8")).toBe(torn);
    const remaining = (await homeContainers(docker, home)).map((c) => c.id);
    expect(remaining.filter((id) => containersAtKill.includes(id))).toEqual([]);

    const after = await connectShim(home, { name: "after-crash", version: "1" });
    expect((await after.run('print(await toy__add({"a": 20, "b": 22}))')).stdout).toBe(
      '{"sum":42}\n',
    );
    await after.close();
    await until(
      () => auditEntries(home, "client_disconnected", "after-crash").length === 1,
      "the new entries",
    );
    const entries = readAudit(home);
    const firstNew = entries.find((e) => e.seq === lastSeq + 1);
    expect(firstNew?.kind).not.toBeUndefined();
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    const final = await runCli(home, ["audit", "verify"]);
    expect(final.stdout).toContain(`ok: ${entries.length} entries, seq 1-${entries.length}`);
    expect(final.stdout).toContain("set aside after a crash");
    expect(final.code).toBe(0);

    await shim.close();
    await next.stop();
    expect(pidAlive(daemon.pid)).toBe(false);
    expect(await homeContainers(docker, home)).toEqual([]);
  });

  it("a run's result reaches its client only after the run's run_finished entry is in the log (disk slower than the socket)", async () => {
    // A slow disk, stood in for by holding each audit entry back 300 ms before it is
    // written (order kept). A result the client holds must already be in the log: a crash
    // right after it was sent would otherwise lose the record of a run the model saw.
    const home = makeHome();
    writeServers(home, { toy: toyServer() });
    const { host } = await startHostInProcess(home);
    const append = host.audit.append.bind(host.audit);
    host.audit.append = (entry: AuditEntryInput, lazy?: boolean) =>
      new Promise((resolve) => setTimeout(resolve, 300)).then(() => append(entry, lazy));
    const shim = await connectShim(home, { name: "slow-disk", version: "1" });
    try {
      await shim.run('print(await toy__add({"a": 1, "b": 1}))');
      // Read at the moment the result arrived, before anything else can happen.
      const onDisk = auditEntries(home, "run_finished", "slow-disk");
      expect(
        onDisk,
        "run_python returned its result before the run_finished entry was written",
      ).toHaveLength(1);
      // The run's start too, though it is written lazily (with the run's end when the run is
      // short): the answer waits for every entry of its run.
      expect(auditEntries(home, "run_started", "slow-disk")).toHaveLength(1);
      await shim.run("print(2)");
      expect(auditEntries(home, "run_started", "slow-disk")).toHaveLength(2);
      expect(auditEntries(home, "run_finished", "slow-disk")).toHaveLength(2);
    } finally {
      await shim.close();
      await stopHostInProcess(host);
    }
  });
});

// Skipped without a Docker engine outside CI, as above: the daemon wraps the toy server and
// the last step runs code in the sandbox.
describe.skipIf(!fx)("a servers.json that does not parse", () => {
  it("is kept aside: the daemon starts and names it, the copy holds the original bytes, and a new config saves through the API", async () => {
    const home = makeHome();
    writeServers(home, {}, "{ not json");
    const daemon = await startDaemon(home);
    const kept = /It was kept as (\S+servers\.json\.invalid-\S+?);/.exec(daemon.stderr())?.[1];
    expect(daemon.stderr()).toContain("servers.json");
    expect(kept, daemon.stderr()).toBeDefined();
    expect(await readFile(kept!, "utf8")).toBe("{ not json");
    expect((await daemon.stop()).code).toBe(0);

    // The same home in a host whose API we can call: the problem is in app.info too.
    const { host } = await startHostInProcess(home);
    try {
      const info = await api(host, "app.info", {});
      const problem = info.startupProblems.find((p) => p.includes("servers.json"));
      expect(problem).toMatch(/It was kept as \S+servers\.json\.invalid-/);
      expect(problem).toContain("no servers are running");
      const views = await api(host, "config.save", {
        json: JSON.stringify({ mcpServers: { toy: toyServer() } }),
      });
      expect(views.items.map((v) => v.name)).toEqual(["toy"]);
      const saved = JSON.parse(await readFile(path.join(home, "servers.json"), "utf8")) as {
        mcpServers: Record<string, unknown>;
      };
      expect(Object.keys(saved.mcpServers)).toEqual(["toy"]);
      // Both kept copies (one per start) still hold what the user had.
      const copies = (await readdir(home)).filter((n) => n.startsWith("servers.json.invalid-"));
      expect(copies.length).toBeGreaterThanOrEqual(1);
      for (const copy of copies)
        expect(await readFile(path.join(home, copy), "utf8")).toBe("{ not json");
      // Saving does not wait for the server's start; its tools come with it.
      await untilServerReady(host, "toy");
      const shim = await connectShim(home, { name: "after-fix", version: "1" });
      expect((await shim.run('print(await toy__add({"a": 2, "b": 2}))')).stdout).toBe(
        '{"sum":4}\n',
      );
      await shim.close();
    } finally {
      await stopHostInProcess(host);
    }
  });
});

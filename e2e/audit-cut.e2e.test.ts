// The audit checkpoint for real: a `codemode daemon` writes a real audit log (a client, a run
// with its calls), stops, and then its files are cut on disk the way someone with write access to the
// data directory would; the real `codemode audit verify` must fail each cut. Before the
// checkpoint, a cut at either end passed.
import { cp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  auditLogFiles,
  fileLines,
  forgedCheckpoint,
  rewriteChain,
  writeLines,
} from "../test-support/audit-tamper.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertToyServerBuilt();
  assertHostBuilt();
});

describe.skipIf(!fx)("audit-cut: codemode audit verify catches a cut log", () => {
  const home = makeHome("codemode-audit-cut-");
  const auditDir = path.join(home, "audit");
  const checkpoint = path.join(home, "audit-checkpoint.json");
  const pristine = path.join(home, "pristine");
  let head = "";

  const verify = (...args: string[]) => runCli(home, ["audit", "verify", ...args]);

  /** Puts back the log and checkpoint as the daemon left them. */
  async function restore(): Promise<void> {
    await rm(auditDir, { recursive: true, force: true });
    await cp(path.join(pristine, "audit"), auditDir, { recursive: true });
    await cp(path.join(pristine, "audit-checkpoint.json"), checkpoint);
    for (const name of await readdir(home)) {
      if (name.endsWith(".cut.json")) await rm(path.join(home, name));
    }
  }

  beforeAll(async () => {
    writeServers(home, { toy: toyServer() });
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "audit-cut", version: "1" });
    const result = await shim.run(
      'for i in range(5):\n    print(await toy__add({"a": i, "b": 1}))',
    );
    expect(result).toMatchObject({ error: null, calls: 5 });
    await shim.close();
    // SIGTERM: the daemon closes the log and writes its checkpoint on the way out.
    await daemon.stop();
    await cp(auditDir, path.join(pristine, "audit"), { recursive: true });
    await cp(checkpoint, path.join(pristine, "audit-checkpoint.json"));
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  it("audit-cut: verify passes the daemon's own log, prints its head, says the checkpoint is unsigned", async () => {
    const out = await verify();
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^ok: \d+ entries, seq 1-\d+/);
    expect(out.stdout).toContain("Checkpoint not signed: no OS keychain");
    const line = out.stdout.split("\n").find((l) => l.startsWith("head: "));
    expect(line).toMatch(/^head: \d+:[0-9a-f]{64}$/);
    head = line?.slice("head: ".length) ?? "";
    const saved = JSON.parse(await readFile(checkpoint, "utf8")) as { seq: number; hash: string };
    expect(`${saved.seq}:${saved.hash}`).toBe(head);
    expect((await verify("--head", head)).code).toBe(0);
  });

  it("audit-cut: the first entries of the first file removed", async () => {
    await restore();
    const [first] = await auditLogFiles(auditDir);
    await writeLines(auditDir, first ?? "", (await fileLines(auditDir, first ?? "")).slice(2));
    const out = await verify();
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /BROKEN at .* line 1 \(seq 3\): .*2 entries were removed from its start/,
    );
  });

  it("audit-cut: the last entries of the last file removed", async () => {
    await restore();
    const name = (await auditLogFiles(auditDir)).at(-1) ?? "";
    await writeLines(auditDir, name, (await fileLines(auditDir, name)).slice(0, -3));
    const out = await verify();
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /the log ends at seq \d+ but the checkpoint .* 3 of its newest entries were removed/,
    );
  });

  it("audit-cut: the whole log removed", async () => {
    await restore();
    await rm(auditDir, { recursive: true, force: true });
    const out = await verify();
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/the log is empty but the checkpoint .* says seq \d+ was written/);
  });

  it("audit-cut: a rewritten chain with a rewritten unsigned checkpoint fails against the noted head", async () => {
    await restore();
    const forged = await rewriteChain(auditDir, 3, (entry) => {
      entry.client = "someone-else";
    });
    await writeFile(checkpoint, forgedCheckpoint(forged));
    // Without a key nothing on disk can tell; verify says so rather than claim more.
    const unnoted = await verify();
    expect(unnoted.code).toBe(0);
    expect(unnoted.stdout).toContain("Checkpoint not signed: no OS keychain");
    const out = await verify("--head", head);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/is not the one the noted head recorded/);
  });

  it("audit-cut: a daemon started on a cut log says so, and verify keeps failing after new entries", async () => {
    await restore();
    const name = (await auditLogFiles(auditDir)).at(-1) ?? "";
    await writeLines(auditDir, name, (await fileLines(auditDir, name)).slice(0, -2));
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "audit-cut-after", version: "1" });
    await shim.close();
    await daemon.stop();
    expect(daemon.stderr()).toMatch(/its checkpoint says seq \d+ was written/);
    const out = await verify();
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/audit-checkpoint\.json\.\d+-\d+\.cut\.json .*set it aside/);
  });

  it("audit-cut: --head that is not SEQ:HASH is refused with what it takes", async () => {
    const out = await verify("--head", "12:xyz");
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/--head takes SEQ:HASH/);
  });
});

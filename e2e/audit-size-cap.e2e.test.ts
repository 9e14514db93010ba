// The audit log's total size is capped. The real AuditLog writes real files (small
// files, the minimum cap) until the oldest are removed; the real verify, in process and through
// the real `codemode audit verify` CLI, passes and names what was removed.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { CHECKPOINT_FILE } from "../electron/host/audit/audit-checkpoint.js";
import { SETTINGS_BOUNDS } from "../shared/limits.js";
import { assertHostBuilt, cleanUpHosts, makeHome, runCli } from "../test-support/daemon.js";

const MiB = 1024 * 1024;
const MAX_TOTAL = SETTINGS_BOUNDS.auditMaxTotalMiB.min * MiB;
const MAX_FILE = 1 * MiB;
// ~4 KiB per entry: a few hundred per file.
const PADDING = "x".repeat(2000);

function auditBytes(dir: string): { files: string[]; bytes: number } {
  const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
  const bytes = files.reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
  return { files: files.sort(), bytes };
}

function open(home: string, maxTotalBytes = MAX_TOTAL): Promise<AuditLog> {
  return AuditLog.open({
    dir: path.join(home, "audit"),
    maxFileBytes: MAX_FILE,
    maxTotalBytes,
    fsync: false,
    checkpoint: { file: path.join(home, CHECKPOINT_FILE) },
  });
}

beforeAll(() => {
  assertHostBuilt();
});

afterAll(async () => {
  await cleanUpHosts();
});

describe("audit log total size cap", () => {
  it("removes the oldest files past the cap, and verify (in process and CLI) passes and names them", async () => {
    const home = makeHome("codemode-auditcap-");
    const dir = path.join(home, "audit");
    const log = await open(home);
    const first = auditBytes(dir).files;
    let firstFile: string | undefined;
    // Write until the oldest file is gone: that takes more than the cap.
    for (let i = 0; i < 20_000; i += 1) {
      await log.append({ kind: "taint_reset", client: `c${i}`, previousTool: PADDING });
      firstFile ??= auditBytes(dir).files[0];
      if (i % 50 === 0 && firstFile !== undefined && !existsSync(path.join(dir, firstFile))) break;
    }
    expect(first).toEqual([]);
    expect(firstFile).toBeDefined();
    expect(existsSync(path.join(dir, firstFile as string))).toBe(false);
    // Checked at rotation, so the files may exceed the cap by at most the file being written.
    expect(auditBytes(dir).bytes).toBeLessThanOrEqual(MAX_TOTAL + MAX_FILE);

    const page = await log.query({ kinds: ["audit_pruned"] }, { limit: 10 });
    const pruned = page.entries.find((e) => e.kind === "audit_pruned");
    expect(pruned).toMatchObject({ kind: "audit_pruned", fromSeq: 1, maxTotalBytes: MAX_TOTAL });
    if (pruned?.kind !== "audit_pruned") throw new Error("no audit_pruned entry");
    expect(pruned.files).toContain(firstFile);
    expect(pruned.bytes).toBeGreaterThan(0);

    const verified = await log.verify();
    expect(verified).toMatchObject({ ok: true, firstSeq: pruned.toSeq + 1 });
    expect(verified.note).toContain(`Seq 1-${pruned.toSeq} removed by the size cap`);
    expect(verified.note).toContain(firstFile);
    await log.close();

    const cli = await runCli(home, ["audit", "verify"]);
    // Stderr carries verify's progress lines (plain lines off a terminal) and nothing else: no
    // warning about the files the cap removed.
    const notProgress = cli.stderr
      .split("\n")
      .filter((line) => line !== "" && !line.endsWith("entries checked"));
    expect(notProgress).toEqual([]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^ok: /);
    expect(cli.stdout).toContain("removed by the size cap");
    expect(cli.stdout).toContain(firstFile);
  });

  it("enforces a lowered cap at start, keeping the newest file, and the chain still verifies", async () => {
    const home = makeHome("codemode-auditcap-");
    const dir = path.join(home, "audit");
    const log = await open(home, 64 * MiB);
    while (auditBytes(dir).files.length < 4) {
      await log.append({ kind: "taint_reset", client: "c", previousTool: PADDING });
    }
    await log.close();
    const before = auditBytes(dir).files;

    // A cap below one file's size: everything but the newest file goes.
    const reopened = await open(home, 1024);
    const removed = reopened.recovery.removedBySize;
    expect(removed?.files).toEqual(before.slice(0, -1));
    const after = auditBytes(dir).files;
    expect(after).toEqual(before.slice(-1));
    const verified = await reopened.verify();
    expect(verified.ok).toBe(true);
    expect(verified.note).toContain(`Seq 1-${removed?.toSeq} removed by the size cap`);
    await reopened.close();

    const cli = await runCli(home, ["audit", "verify"]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("removed by the size cap");
  });
});

// `codemode audit verify` shows how far it has read a big log. A log written by
// the real AuditLog (syncing off) over several files; the real CLI, its stderr a pipe, prints
// plain progress lines there (a terminal would get one line redrawn in place) and keeps stdout
// for the verdict.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { mixedInput } from "../test-support/audit-fixtures.js";
import { assertHostBuilt, makeHome, runCli } from "../test-support/daemon.js";

/** Enough entries for several of verify's read chunks (AUDIT_VERIFY_READ_CHUNK_BYTES). */
const ENTRIES = 40_000;
const FILE_BYTES = 2 * 1024 * 1024;

beforeAll(() => {
  assertHostBuilt();
});

describe("codemode audit verify progress", () => {
  it("prints progress on stderr up to 100 % and the verdict on stdout", async () => {
    const home = makeHome("codemode-verify-progress-");
    const log = await AuditLog.open({
      dir: path.join(home, "audit"),
      fsync: false,
      maxFileBytes: FILE_BYTES,
    });
    for (let i = 0; i < ENTRIES; i += 2000) {
      await Promise.all(Array.from({ length: 2000 }, (_, j) => log.append(mixedInput(i + j))));
    }
    await log.close();

    const cli = await runCli(home, ["audit", "verify"], { timeoutMs: 60_000 });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`ok: ${ENTRIES} entries`);
    expect(cli.stdout).not.toContain("%");
    const lines = cli.stderr.split("\n").filter((line) => line.includes("entries checked"));
    // Not a terminal: whole lines, no carriage returns.
    expect(cli.stderr).not.toContain("\r");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).not.toContain("100%");
    expect(lines.at(-1)).toBe(
      `[${"#".repeat(30)}] 100% ${ENTRIES.toLocaleString("en")} entries checked`,
    );
  });
});

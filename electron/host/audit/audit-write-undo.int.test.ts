// A write to the audit log that lands in part and then fails (a full disk) must be taken back,
// so the file ends with the last acknowledged entry and the chain stays whole. A real process
// under a file-size limit meets it; on Linux the log's file is opened O_DSYNC, where the
// failure comes from the write itself rather than from an fdatasync after it.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callInput, makeTempDir } from "../../../test-support/audit-fixtures.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const appender = path.join(root, "test-support", "audit-appender.ts");
/** The file-size limit, in KiB (ulimit -f's unit): a few dozen entries. */
const LIMIT_KIB = 8;

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await makeTempDir());
});
afterEach(async () => {
  await remove();
});

// ulimit -f and SIGXFSZ: POSIX shells and kernels; Windows has neither.
describe.skipIf(process.platform === "win32")("an audit write that fails part way", () => {
  it("is taken back: the file ends with the last acknowledged entry and verifies", async () => {
    const { stdout } = await promisify(execFile)(
      "/bin/sh",
      [
        "-c",
        `ulimit -f ${LIMIT_KIB} && exec "$0" --import tsx "$1" "$2"`,
        process.execPath,
        appender,
        dir,
      ],
      { cwd: root },
    );
    const [first, second] = stdout.trim().split("\n");
    const [count, failure] = (first ?? "").replace("appended ", "").split(": ");
    const appended = Number(count);
    expect(failure).toBe("EFBIG");
    expect(appended).toBeGreaterThan(0);
    // The file is full up to the failed entry, so the next fails too; nothing was half written.
    expect(second).toBe("then: EFBIG");
    const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    const text = readFileSync(path.join(dir, files[0]!), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(appended + 1);
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: appended });
    // Without the limit the chain goes on from the last acknowledged entry.
    const log = await AuditLog.open({ dir });
    expect((await log.append(callInput(appended))).seq).toBe(appended + 1);
    await log.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: appended + 1 });
  }, 20_000);
});

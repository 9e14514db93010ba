// The bench's million-entry log, written through the real AuditLog (syncing off) so its lines,
// files and rotation are exactly what the app would leave. Kept between runs when
// CODEMODE_BENCH_AUDIT_DIR names a directory (it is made once, ~30 s, and reused).
import { mkdir, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { mixedInput } from "../test-support/audit-fixtures.js";

const BATCH = 2000;

export async function benchAuditLog(
  entries: number,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const kept = process.env.CODEMODE_BENCH_AUDIT_DIR;
  const dir = kept ?? path.join(os.tmpdir(), `codemode-bench-audit-${process.pid}`);
  const remove =
    kept === undefined ? () => rm(dir, { recursive: true, force: true }) : async () => {};
  const ready = path.join(dir, `ready-${entries}`);
  if (
    kept !== undefined &&
    (await readdir(dir).catch((): string[] => [])).includes(path.basename(ready))
  ) {
    return { dir: path.join(dir, "audit"), remove };
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const log = await AuditLog.open({
    dir: path.join(dir, "audit"),
    fsync: false,
    maxTotalBytes: Number.MAX_SAFE_INTEGER,
  });
  for (let i = 0; i < entries; i += BATCH) {
    const count = Math.min(BATCH, entries - i);
    await Promise.all(Array.from({ length: count }, (_, j) => log.append(mixedInput(i + j))));
  }
  await log.close();
  await mkdir(ready);
  return { dir: path.join(dir, "audit"), remove };
}

// The per-line work of `verify` before it read in batches: one await per line (linesForward),
// a Hash object per line, then the same parse, schema and chain checks. Kept here only as the
// bench's baseline, measured in the same run as the verify of this build.
import { createHash } from "node:crypto";
import { GENESIS_PREV, auditEntrySchema } from "../shared/audit-entry.js";
import { linesForward, listAuditFiles } from "../electron/host/audit/audit-files.js";

export async function verifyPerLine(dir: string): Promise<number> {
  let last: { seq: number; hash: string } | null = null;
  let entries = 0;
  for (const file of await listAuditFiles(dir)) {
    for await (const { bytes, complete } of linesForward(file.path)) {
      if (!complete) break;
      const hash = createHash("sha256").update(bytes).digest("hex");
      const parsed = auditEntrySchema.safeParse(JSON.parse(bytes.toString("utf8")));
      if (!parsed.success) throw new Error("not a valid audit entry");
      const { seq, prev, ts } = parsed.data;
      if (Number.isNaN(Date.parse(ts))) throw new Error("bad time");
      const expected = last === null ? GENESIS_PREV : last.hash;
      if ((last !== null || seq === 1) && prev !== expected) throw new Error("chain broken");
      last = { seq, hash };
      entries += 1;
    }
  }
  return entries;
}

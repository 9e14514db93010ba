// The desktop app's export: the log streamed into the file the user chose. It is written
// beside the target first and renamed over it once complete, so a failed or half-written
// export never sits under the name the user picked, and an existing file there is kept
// until the new one is whole.
import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type { AuditFilter } from "../../../shared/audit-query-types.js";
import type { ExportFormat } from "./audit-export.js";

/** What writes an export to a stream: AuditLog.export, or exportAudit bound to a folder. */
export type AuditExporter = (
  format: ExportFormat,
  out: Writable,
  filter?: AuditFilter,
) => Promise<number>;

/** Resolves with how many entries the file holds. */
export async function exportAuditToFile(
  exporter: AuditExporter,
  file: string,
  format: ExportFormat,
  filter?: AuditFilter,
): Promise<number> {
  // A random part besides the pid: two exports to the same file at once (two clicks, two
  // windows) would otherwise both open the same part file, and the second fail with EEXIST.
  const unique = `${process.pid}.${randomBytes(6).toString("hex")}`;
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${unique}.part`);
  // Opened first, so a folder that cannot be written fails here, before any reading.
  const handle = await open(partial, "wx", 0o600);
  const out = handle.createWriteStream();
  // A write error destroys the stream: exportAudit then stops, and finished() throws it.
  out.on("error", () => undefined);
  try {
    const entries = await exporter(format, out, filter);
    out.end();
    await finished(out);
    await rename(partial, file);
    return entries;
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}

// Exporting the audit log from the UI. A log can hold millions of entries, far more than one
// API message may carry, so an export never crosses the API as a value: in browser mode the
// UI server streams it as an HTTP download (the page asks over its authenticated WebSocket
// for a one-time link), in the desktop app the main process streams it into the file the
// user picks in a save dialog (`window.codemodeDesktop.exportAudit`).
import { z } from "zod";
import { auditFilterSchema } from "../audit-query-types.js";

export const auditExportParams = z.strictObject({
  format: z.enum(["jsonl", "csv"]),
  filter: auditFilterSchema.optional(),
});
export type AuditExportParams = z.infer<typeof auditExportParams>;
export type AuditExportFormat = AuditExportParams["format"];

/** Desktop: what the save dialog and the file stream came to. Errors are data here too. */
export type DesktopExportResult =
  { ok: true; saved: { path: string; entries: number } | null } | { ok: false; message: string };

export interface DesktopAuditExporter {
  /** Asks where to save, then writes the export there; `saved` is null when cancelled. */
  exportAudit(params: AuditExportParams): Promise<DesktopExportResult>;
}

/** The file name offered for an export made at `now`: codemode-audit-2026-12-02-10-30-00.csv */
export function auditExportFileName(format: AuditExportFormat, now: Date = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return `codemode-audit-${stamp}.${format}`;
}

export const AUDIT_EXPORT_CONTENT_TYPES: Record<AuditExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8",
};

/** Browser mode: the path of the UI server's download route; a one-time ticket follows it. */
export const AUDIT_EXPORT_PATH = "/audit-export/";

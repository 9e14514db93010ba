// Browser mode's audit export: an HTTP download streamed from the log's files. The page asks
// for it over its WebSocket (signed in), and gets a one-time link with a random ticket: the
// page's session never goes into a URL, where the browser would keep it in its history and
// its list of downloads.
import type http from "node:http";
import type { Writable } from "node:stream";
import {
  AUDIT_EXPORT_CONTENT_TYPES,
  AUDIT_EXPORT_PATH,
  auditExportFileName,
  type AuditExportParams,
} from "../../../../shared/api/audit-export.js";
import type { AuditFilter } from "../../../../shared/audit-query-types.js";
import { OneTimeTickets } from "./one-time-tickets.js";

/** Browser mode: a link to download the audit export works once, within this time. */
export const EXPORT_LINK_TTL_MS = 60_000;

/** Browser mode: export links not yet used; asking for one more drops the oldest. */
export const EXPORT_LINKS_MAX = 8;

/** What streams an export: AuditLog.export. */
export type StreamExport = (
  format: AuditExportParams["format"],
  out: Writable,
  filter?: AuditFilter,
) => Promise<number>;

/** Links not yet used; each works once, before it expires. */
export class ExportLinks {
  private readonly tickets: OneTimeTickets<AuditExportParams>;

  constructor(now: () => number = Date.now) {
    this.tickets = new OneTimeTickets({ ttlMs: EXPORT_LINK_TTL_MS, max: EXPORT_LINKS_MAX }, now);
  }

  /** A new link (a path on the UI server) for an export with `params`. */
  issue(params: AuditExportParams): string {
    return `${AUDIT_EXPORT_PATH}${this.tickets.issue(params)}`;
  }

  /** The params of a live link, which is used up by this; null for any other ticket. */
  take(ticket: string): AuditExportParams | null {
    return this.tickets.take(ticket);
  }
}

/**
 * Streams the export as an attachment. The log is read a line at a time and written as the
 * browser takes it (exportAudit waits for the socket to drain), so the host's memory does not
 * grow with the log. A failure after the headers went out can only cut the download short.
 */
export async function sendExport(
  res: http.ServerResponse,
  params: AuditExportParams,
  stream: StreamExport,
  headers: Record<string, string>,
  log?: (line: string) => void,
): Promise<void> {
  res.writeHead(200, {
    ...headers,
    "Content-Type": AUDIT_EXPORT_CONTENT_TYPES[params.format],
    "Content-Disposition": `attachment; filename="${auditExportFileName(params.format)}"`,
  });
  try {
    await stream(params.format, res, params.filter);
    res.end();
  } catch (error) {
    log?.(`audit export: ${error instanceof Error ? error.message : String(error)}`);
    // Cut the connection: a download that ends cleanly would look complete.
    res.destroy();
  }
}

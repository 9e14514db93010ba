import type { IpcMainInvokeEvent, WebContents } from "electron";
import {
  auditExportFileName,
  auditExportParams,
  type DesktopExportResult,
} from "../../shared/api/audit-export.js";
import { IPC_EXPORT_AUDIT } from "../../shared/api/ipc-channels.js";
import { exportAuditToFile, type AuditExporter } from "../host/app/index.js";

/** The parts of ipcMain and dialog used here, so this wiring stays testable without Electron. */
export interface ExportIpcLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, params: unknown) => unknown): void;
}
export type ShowSaveDialog = (
  sender: WebContents,
  options: { defaultPath: string; filters: { name: string; extensions: string[] }[] },
) => Promise<{ canceled: boolean; filePath?: string }>;

/**
 * The Audit page's Export in the desktop app: the OS save dialog, then the log streamed into
 * the chosen file (never a whole-log value over IPC), for our own window only.
 */
export function registerAuditExportIpc(
  ipc: ExportIpcLike,
  showSaveDialog: ShowSaveDialog,
  exporter: AuditExporter,
  isTrusted: (sender: WebContents, frameUrl: string | undefined) => boolean,
): void {
  ipc.handle(IPC_EXPORT_AUDIT, async (event, params): Promise<DesktopExportResult> => {
    if (!isTrusted(event.sender, event.senderFrame?.url)) {
      return { ok: false, message: "request from an untrusted frame" };
    }
    const parsed = auditExportParams.safeParse(params);
    if (!parsed.success) {
      return { ok: false, message: `invalid export request: ${parsed.error.issues[0]?.message}` };
    }
    const { format, filter } = parsed.data;
    const choice = await showSaveDialog(event.sender, {
      defaultPath: auditExportFileName(format),
      filters: [
        format === "csv"
          ? { name: "CSV", extensions: ["csv"] }
          : { name: "JSON Lines", extensions: ["jsonl"] },
      ],
    });
    if (choice.canceled || !choice.filePath) return { ok: true, saved: null };
    try {
      const entries = await exportAuditToFile(exporter, choice.filePath, format, filter);
      return { ok: true, saved: { path: choice.filePath, entries } };
    } catch (error) {
      return {
        ok: false,
        message: `The export could not be saved: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  });
}

import type { IpcMainInvokeEvent, WebContents } from "electron";
import { IPC_PICK_PATH } from "../../shared/api/ipc-channels.js";
import { pickPathParams } from "../../shared/api/path-picker.js";

/** The parts of ipcMain and dialog used here, so this wiring stays testable without Electron. */
export interface PickerIpcLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, params: unknown) => unknown): void;
}
export type ShowOpenDialog = (
  sender: WebContents,
  options: { properties: ("openDirectory" | "openFile" | "createDirectory")[] },
) => Promise<{ canceled: boolean; filePaths: string[] }>;

/**
 * "Choose…" next to a folder or file field: the OS picker, for our own window only. What
 * comes back is only a path the user picked; nothing is read from it here.
 */
export function registerPathPickerIpc(
  ipc: PickerIpcLike,
  showOpenDialog: ShowOpenDialog,
  isTrusted: (sender: WebContents, frameUrl: string | undefined) => boolean,
): void {
  ipc.handle(IPC_PICK_PATH, async (event, params) => {
    if (!isTrusted(event.sender, event.senderFrame?.url)) return null;
    const parsed = pickPathParams.safeParse(params);
    if (!parsed.success) return null;
    const result = await showOpenDialog(event.sender, {
      properties:
        parsed.data.kind === "folder" ? ["openDirectory", "createDirectory"] : ["openFile"],
    });
    return result.canceled ? null : (result.filePaths[0] ?? null);
  });
}

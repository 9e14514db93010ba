// Electron IPC channel names, derived from the API contract so that the preload and the
// main process can never disagree about them.
import { API_CHANNELS, type ApiChannel, type ApiEventName } from "./api-contract.js";

export const ipcRequestChannel = <C extends ApiChannel>(channel: C) =>
  `codemode:request:${channel}` as const;
export const ipcEventChannel = <E extends ApiEventName>(event: E) =>
  `codemode:event:${event}` as const;
export const IPC_SUBSCRIBE = "codemode:subscribe" as const;
export const IPC_UNSUBSCRIBE = "codemode:unsubscribe" as const;

export const IPC_REQUEST_CHANNELS = API_CHANNELS.map(ipcRequestChannel);

/** Desktop only: the OS's folder or file picker, asked for by a form's "Choose…" button. */
export const IPC_PICK_PATH = "codemode:pickPath" as const;

/** Desktop only: the Audit page's Export, through a save dialog into a file stream. */
export const IPC_EXPORT_AUDIT = "codemode:exportAudit" as const;

// The renderer's only door to the host: one object, `window.codemode`, implementing the
// typed ApiClient. Requests go to the one IPC channel of their API channel; each
// subscription is for one event name from the contract and returns its own unsubscribe.
// No raw ipcRenderer and no way to listen on an arbitrary channel reach the page.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import {
  API_CHANNELS,
  API_EVENTS,
  type ApiChannel,
  type ApiClient,
  type ApiEventName,
  type ApiParams,
  type ApiResponse,
  type ApiResult,
  type ApiEvents,
} from "../shared/api/api-contract.js";
import type { DesktopAuditExporter, DesktopExportResult } from "../shared/api/audit-export.js";
import {
  IPC_EXPORT_AUDIT,
  IPC_PICK_PATH,
  IPC_SUBSCRIBE,
  IPC_UNSUBSCRIBE,
  ipcEventChannel,
  ipcRequestChannel,
} from "../shared/api/ipc-channels.js";
import type { PathPicker } from "../shared/api/path-picker.js";

const listeners = new Map<ApiEventName, number>();

const client: ApiClient = {
  async request<C extends ApiChannel>(
    channel: C,
    params: ApiParams<C>,
  ): Promise<ApiResponse<ApiResult<C>>> {
    if (!(API_CHANNELS as readonly string[]).includes(channel)) {
      return {
        ok: false,
        error: { code: "not_found", message: `no API channel named ${String(channel)}` },
      };
    }
    return (await ipcRenderer.invoke(ipcRequestChannel(channel), params)) as ApiResponse<
      ApiResult<C>
    >;
  },
  subscribe<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void) {
    if (!(API_EVENTS as readonly string[]).includes(event)) return () => undefined;
    const channel = ipcEventChannel(event);
    const handler = (_event: IpcRendererEvent, payload: ApiEvents[E]): void => listener(payload);
    ipcRenderer.on(channel, handler);
    // The main process keeps one host subscription per window and event: ask for it with
    // the first listener, give it back with the last.
    const count = (listeners.get(event) ?? 0) + 1;
    listeners.set(event, count);
    if (count === 1) ipcRenderer.send(IPC_SUBSCRIBE, event);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      ipcRenderer.removeListener(channel, handler);
      const left = (listeners.get(event) ?? 1) - 1;
      listeners.set(event, left);
      if (left === 0) ipcRenderer.send(IPC_UNSUBSCRIBE, event);
    };
  },
};

contextBridge.exposeInMainWorld("codemode", client);

// The OS folder and file picker for forms' "Choose…" buttons, and the Audit page's export
// through a save dialog (desktop only).
const picker: PathPicker & DesktopAuditExporter = {
  async pickPath(params) {
    return (await ipcRenderer.invoke(IPC_PICK_PATH, params)) as string | null;
  },
  async exportAudit(params) {
    return (await ipcRenderer.invoke(IPC_EXPORT_AUDIT, params)) as DesktopExportResult;
  },
};
contextBridge.exposeInMainWorld("codemodeDesktop", picker);

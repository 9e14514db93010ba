import type { IpcMainEvent, IpcMainInvokeEvent, WebContents } from "electron";
import {
  API_CHANNELS,
  API_EVENTS,
  type ApiEventName,
  type ApiHandlers,
} from "../../shared/api/api-contract.js";
import {
  IPC_SUBSCRIBE,
  IPC_UNSUBSCRIBE,
  ipcEventChannel,
  ipcRequestChannel,
} from "../../shared/api/ipc-channels.js";
import { dispatchApi, type EventHub } from "../host/app/index.js";

/** The parts of ipcMain used here, so this wiring stays testable without Electron. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, params: unknown) => unknown): void;
  on(channel: string, listener: (event: IpcMainEvent, payload: unknown) => void): void;
  removeHandler(channel: string): void;
}

/**
 * Thin: each API channel gets one handler that hands its payload to the same dispatcher
 * the WebSocket uses (which validates it against the contract). Requests from anything but
 * our own window are refused.
 */
export function registerApiIpc(
  ipc: IpcMainLike,
  host: { api: ApiHandlers; events: Pick<EventHub, "on"> },
  isTrusted: (sender: WebContents, frameUrl: string | undefined) => boolean,
  log: (line: string) => void,
): () => void {
  for (const channel of API_CHANNELS) {
    ipc.handle(ipcRequestChannel(channel), (event, params) => {
      if (!isTrusted(event.sender, event.senderFrame?.url)) {
        return {
          ok: false,
          error: { code: "invalid", message: "request from an untrusted frame" },
        };
      }
      return dispatchApi(host.api, channel, params, (name, error) =>
        log(`api ${name}: ${String(error)}`),
      );
    });
  }
  // One host subscription per (window, event); removed when the window goes away.
  const subscriptions = new Map<WebContents, Map<ApiEventName, () => void>>();
  const forget = (sender: WebContents): void => {
    for (const off of subscriptions.get(sender)?.values() ?? []) off();
    subscriptions.delete(sender);
  };
  ipc.on(IPC_SUBSCRIBE, (event, payload) => {
    const name = payload as ApiEventName;
    if (
      !(API_EVENTS as readonly string[]).includes(name) ||
      !isTrusted(event.sender, event.senderFrame?.url)
    )
      return;
    let mine = subscriptions.get(event.sender);
    if (!mine) {
      mine = new Map();
      subscriptions.set(event.sender, mine);
      event.sender.once("destroyed", () => forget(event.sender));
    }
    if (mine.has(name)) return;
    const sender = event.sender;
    mine.set(
      name,
      host.events.on(name, (data) => {
        if (!sender.isDestroyed()) sender.send(ipcEventChannel(name), data);
      }),
    );
  });
  ipc.on(IPC_UNSUBSCRIBE, (event, payload) => {
    const mine = subscriptions.get(event.sender);
    const name = payload as ApiEventName;
    mine?.get(name)?.();
    mine?.delete(name);
  });
  return () => {
    for (const channel of API_CHANNELS) ipc.removeHandler(ipcRequestChannel(channel));
    for (const sender of [...subscriptions.keys()]) forget(sender);
  };
}

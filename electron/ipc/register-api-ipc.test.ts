import { EventEmitter } from "node:events";
import type { IpcMainEvent, IpcMainInvokeEvent, WebContents } from "electron";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  API_CHANNELS,
  API_EVENTS,
  API_PARAMS,
  type ApiEventName,
  type ApiHandlers,
  type ApiResults,
} from "../../shared/api/api-contract.js";
import {
  IPC_REQUEST_CHANNELS,
  IPC_SUBSCRIBE,
  ipcEventChannel,
  ipcRequestChannel,
} from "../../shared/api/ipc-channels.js";
import { buildApiHandlers } from "../host/api/handlers/api-handlers.js";
import { EventHub } from "../host/api/event-hub.js";
import { registerApiIpc, type IpcMainLike } from "./register-api-ipc.js";

// The contract's maps and every side built from them must stay in step: these fail to
// compile (npm run typecheck) when a channel or event is added on one side only.
describe("the API contract keeps every side in step", () => {
  it("params, results, events and handlers name the same channels", () => {
    expectTypeOf<keyof typeof API_PARAMS>().toEqualTypeOf<keyof ApiResults>();
    expectTypeOf<Exclude<ApiEventName, (typeof API_EVENTS)[number]>>().toEqualTypeOf<never>();
    expectTypeOf<ReturnType<typeof buildApiHandlers>>().toEqualTypeOf<ApiHandlers>();
    expect(new Set(IPC_REQUEST_CHANNELS).size).toBe(API_CHANNELS.length);
  });
});

class FakeIpc implements IpcMainLike {
  handlers = new Map<string, (event: IpcMainInvokeEvent, params: unknown) => unknown>();
  listeners = new Map<string, (event: IpcMainEvent, payload: unknown) => void>();
  handle(channel: string, listener: (event: IpcMainInvokeEvent, params: unknown) => unknown): void {
    this.handlers.set(channel, listener);
  }
  on(channel: string, listener: (event: IpcMainEvent, payload: unknown) => void): void {
    this.listeners.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}

function fakeSender(): WebContents & { sent: [string, unknown][] } {
  const emitter = new EventEmitter() as unknown as WebContents & { sent: [string, unknown][] };
  emitter.sent = [];
  emitter.send = (channel: string, payload: unknown) => void emitter.sent.push([channel, payload]);
  emitter.isDestroyed = () => false;
  return emitter;
}

function asEvent<T>(sender: WebContents): T {
  return { sender } as unknown as T;
}

describe("IPC wiring", () => {
  const calls: string[] = [];
  const api = new Proxy({} as ApiHandlers, {
    get: (_target, channel: string) => (params: unknown) => {
      calls.push(channel);
      return { echoed: params };
    },
  });
  const events = new EventHub();
  const ipc = new FakeIpc();
  const trusted = fakeSender();
  registerApiIpc(
    ipc,
    { api, events },
    (sender) => sender === trusted,
    () => undefined,
  );

  it("registers one handler per API channel", () => {
    expect([...ipc.handlers.keys()].sort()).toEqual([...IPC_REQUEST_CHANNELS].sort());
  });

  it("validates every payload before a handler sees it", async () => {
    const handler = ipc.handlers.get(ipcRequestChannel("taint.reset"))!;
    const bad = (await handler(asEvent<IpcMainInvokeEvent>(trusted), { client: 42 })) as {
      ok: boolean;
      error: { code: string };
    };
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(calls).not.toContain("taint.reset");
    const good = await handler(asEvent<IpcMainInvokeEvent>(trusted), { client: "claude" });
    expect(good).toEqual({ ok: true, value: { echoed: { client: "claude" } } });
  });

  it("refuses requests from any other frame", async () => {
    const handler = ipc.handlers.get(ipcRequestChannel("app.info"))!;
    const result = await handler(asEvent<IpcMainInvokeEvent>(fakeSender()), {});
    expect(result).toMatchObject({ ok: false });
  });

  it("forwards subscribed events to the window, once per subscription", () => {
    ipc.listeners.get(IPC_SUBSCRIBE)!(asEvent<IpcMainEvent>(trusted), "taint.changed");
    ipc.listeners.get(IPC_SUBSCRIBE)!(asEvent<IpcMainEvent>(trusted), "taint.changed");
    ipc.listeners.get(IPC_SUBSCRIBE)!(asEvent<IpcMainEvent>(trusted), "no.such.event");
    const page = { items: [], total: 0, next: null };
    events.emit("taint.changed", page);
    expect(trusted.sent).toEqual([[ipcEventChannel("taint.changed"), page]]);
  });
});

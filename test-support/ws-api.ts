// The typed API over the browser-mode WebSocket, as the UI reaches a daemon started with --ui:
// for tests that need the API of a host running as a real process.
import WebSocket from "ws";
import type { ApiChannel, ApiParams, ApiResponse, ApiResult } from "../shared/api/api-contract.js";
import type { WsServerMessage } from "../shared/api/ws-protocol.js";

export interface WsApi {
  /** One request; its value, or a thrown error naming the API's error code and message. */
  request<C extends ApiChannel>(channel: C, params: ApiParams<C>): Promise<ApiResult<C>>;
  close(): void;
}

/** Connects to `ws://127.0.0.1:<port>/api` with the page's Origin, and says hello with `token`. */
export async function connectWsApi(port: number, token: string): Promise<WsApi> {
  const origin = `http://127.0.0.1:${port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Origin: origin } });
  const pending = new Map<number, (response: ApiResponse<unknown>) => void>();
  let nextId = 1;
  const welcomed = new Promise<void>((resolve, reject) => {
    ws.once("error", reject);
    ws.once("close", (code) => reject(new Error(`the API socket closed (${code})`)));
    ws.on("message", (data: Buffer) => {
      const message = JSON.parse(data.toString("utf8")) as WsServerMessage;
      if (message.type === "welcome") resolve();
      if (message.type === "response") {
        pending.get(message.id)?.(message.response);
        pending.delete(message.id);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ type: "hello", token }));
  await welcomed;
  return {
    async request(channel, params) {
      const id = nextId++;
      const response = await new Promise<ApiResponse<unknown>>((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ type: "request", id, channel, params }));
      });
      if (!response.ok) {
        throw new Error(`${channel}: ${response.error.code}: ${response.error.message}`);
      }
      return response.value as ApiResult<typeof channel>;
    },
    close: () => ws.close(),
  };
}

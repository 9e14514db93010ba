// The typed API over the browser-mode WebSocket, as the UI reaches a daemon started with --ui:
// for tests that need the API of a host running as a real process.
import WebSocket from "ws";
import type { ApiChannel, ApiParams, ApiResponse, ApiResult } from "../shared/api/api-contract.js";
import type { WsCredential, WsServerMessage } from "../shared/api/ws-protocol.js";

export interface WsApi {
  /** The session this connection signed in with (the one its ticket was traded for). */
  readonly session: string;
  /** One request; its value, or a thrown error naming the API's error code and message. */
  request<C extends ApiChannel>(channel: C, params: ApiParams<C>): Promise<ApiResult<C>>;
  close(): void;
}

/**
 * Connects to `ws://127.0.0.1:<port>/api` with the page's Origin, and says hello with a
 * ticket (a daemon's `ticket()`, which this uses up) or a session.
 */
export async function connectWsApi(port: number, credential: WsCredential): Promise<WsApi> {
  const origin = `http://127.0.0.1:${port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Origin: origin } });
  const pending = new Map<number, (response: ApiResponse<unknown>) => void>();
  let nextId = 1;
  const welcomed = new Promise<string>((resolve, reject) => {
    ws.once("error", reject);
    ws.once("close", (code) => reject(new Error(`the API socket closed (${code})`)));
    ws.on("message", (data: Buffer) => {
      const message = JSON.parse(data.toString("utf8")) as WsServerMessage;
      if (message.type === "welcome") {
        resolve(message.session ?? ("session" in credential ? credential.session : ""));
      }
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
  ws.send(JSON.stringify({ type: "hello", ...credential }));
  const session = await welcomed;
  return {
    session,
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

/** The ticket of a link that opens the browser UI (`http://127.0.0.1:PORT/#ticket=...`). */
export function ticketOf(link: string): string {
  const hash = new URL(link).hash;
  if (!hash.startsWith("#ticket=")) throw new Error(`not a UI link: ${link}`);
  return hash.slice("#ticket=".length);
}

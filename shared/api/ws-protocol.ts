// Framing of the typed API over the browser-mode WebSocket: one JSON message per frame.
import { z } from "zod";
import { API_LIMITS } from "../limits.js";
import type { AuditExportParams } from "./audit-export.js";
import type { ApiChannel, ApiEventName, ApiEvents, ApiResponse } from "./api-contract.js";

/** The first message on a new connection: nothing else is answered before it. */
export const wsHello = z.strictObject({
  type: z.literal("hello"),
  token: z.string().max(API_LIMITS.wsTokenMaxChars),
});

export const wsClientMessage = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("request"),
    id: z.number().int().nonnegative(),
    channel: z.string().max(API_LIMITS.wsNameMaxChars),
    params: z.unknown(),
  }),
  /** Asks for a one-time link that downloads the audit export (see audit-export.ts). */
  z.strictObject({
    type: z.literal("exportLink"),
    id: z.number().int().nonnegative(),
    params: z.unknown(),
  }),
  z.strictObject({
    type: z.literal("subscribe"),
    event: z.string().max(API_LIMITS.wsNameMaxChars),
  }),
  z.strictObject({
    type: z.literal("unsubscribe"),
    event: z.string().max(API_LIMITS.wsNameMaxChars),
  }),
]);
export type WsClientMessage =
  | { type: "request"; id: number; channel: ApiChannel; params: unknown }
  | { type: "exportLink"; id: number; params: AuditExportParams }
  | { type: "subscribe"; event: ApiEventName }
  | { type: "unsubscribe"; event: ApiEventName };

export type WsServerMessage =
  | { type: "welcome" }
  /** To a request, or to an exportLink (whose value is `{ url }`, a path on this server). */
  | { type: "response"; id: number; response: ApiResponse<unknown> }
  | { [E in ApiEventName]: { type: "event"; event: E; payload: ApiEvents[E] } }[ApiEventName];

/** Close codes the host uses; the browser stops reconnecting on a refused token. */
export const WS_CLOSE = {
  badToken: 4401,
  badMessage: 4400,
} as const;

// Framing of the typed API over the browser-mode WebSocket: one JSON message per frame.
import { z } from "zod";
import { API_LIMITS } from "../limits.js";
import type { AuditExportParams } from "./audit-export.js";
import type { ApiChannel, ApiEventName, ApiEvents, ApiResponse } from "./api-contract.js";

/**
 * The first message on a new connection: nothing else is answered before it. A page opened
 * with a link says its one-time ticket and is welcomed with a session; it says that session
 * on every later connection (reconnects, reloads).
 */
export const wsHello = z.union([
  z.strictObject({
    type: z.literal("hello"),
    ticket: z.string().max(API_LIMITS.wsTokenMaxChars),
  }),
  z.strictObject({
    type: z.literal("hello"),
    session: z.string().max(API_LIMITS.wsTokenMaxChars),
  }),
]);
export type WsHello = z.infer<typeof wsHello>;
/** What a page says in its hello: a one-time ticket from its link, or its session. */
export type WsCredential = { ticket: string } | { session: string };

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
  /** `session`: in answer to a ticket, what the page says from then on. */
  | { type: "welcome"; session?: string }
  /** To a request, or to an exportLink (whose value is `{ url }`, a path on this server). */
  | { type: "response"; id: number; response: ApiResponse<unknown> }
  | { [E in ApiEventName]: { type: "event"; event: E; payload: ApiEvents[E] } }[ApiEventName];

/** Close codes the host uses; the browser stops reconnecting on a refused ticket or session. */
export const WS_CLOSE = {
  /** No hello in time, or a session this host did not give (or no longer knows). */
  badSession: 4401,
  /** A ticket not issued, used already, or expired. */
  badTicket: 4410,
  badMessage: 4400,
} as const;

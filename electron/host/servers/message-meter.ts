import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";

/** Why a server that sent too many messages was stopped: its state's lastError says so. */
export const FLOOD_REASON = `it sent more than ${SERVER_LIMITS.messagesPerWindowMax} messages in ${SERVER_LIMITS.messagesWindowMs / 1000} s`;

/**
 * Counts what a server sends, before the SDK's client handles it (Protocol.connect keeps an
 * onmessage set before it and calls it first). Every line a server writes costs the host a
 * parse, whatever it is: a server writing notifications as fast as its pipe takes them kept the
 * host's one thread ~100% busy (event-loop delays of ~190 ms) for as long as it liked. Past
 * SERVER_LIMITS.messagesPerWindowMax in messagesWindowMs `onFlood` runs, once; the caller stops the
 * server (its restart backoff then spaces out any new flood).
 */
export function meterMessages(
  transport: Transport,
  onFlood: () => void,
  now: () => number = () => performance.now(),
): void {
  let windowStart = now();
  let count = 0;
  let flooded = false;
  transport.onmessage = () => {
    if (flooded) return;
    const at = now();
    if (at - windowStart >= SERVER_LIMITS.messagesWindowMs) {
      windowStart = at;
      count = 0;
    }
    if (++count <= SERVER_LIMITS.messagesPerWindowMax) return;
    flooded = true;
    onFlood();
  };
}

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { MESSAGES_PER_SECOND_MAX, MESSAGES_BURST_MAX } from "./rate-bucket.js";

/** Why a server that sent too many messages was stopped: its state's lastError says so. */
export const FLOOD_REASON = `it sent more than ${MESSAGES_BURST_MAX} messages at once, or more than ${MESSAGES_PER_SECOND_MAX} a second for longer`;

/**
 * Counts what a server sends, before the SDK's client handles it (Protocol.connect keeps an
 * onmessage and onerror set before it and calls them first), lines it cannot read included. Every
 * line a server writes costs the host a parse, whatever it is: a server writing notifications as
 * fast as its pipe takes them kept the host's one thread ~100% busy (event-loop delays of ~190 ms)
 * for as long as it liked. The count is a bucket of MESSAGES_BURST_MAX refilled at
 * MESSAGES_PER_SECOND_MAX: the message that finds it empty runs `onFlood`, once; the caller stops
 * the server (its restart backoff then spaces out any new flood). Wraps `transport.send` to count
 * the host's requests. Returns the count itself, for what else costs the host as much as a message
 * (a chunk ending no line).
 */
export function meterMessages(
  transport: Transport,
  onFlood: () => void,
  now: () => number = () => performance.now(),
): () => void {
  let tokens: number = MESSAGES_BURST_MAX;
  let last = now();
  let flooded = false;
  // Answers to the host's own requests are not metered, one per request: the host bounds how
  // many it asks, and a fast honest server answering a run's gathered calls (thousands a
  // second) was stopped as a flood mid-run.
  let answersOwed = 0;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ("method" in message && "id" in message) answersOwed++;
    return send(message, options);
  };
  const count = (): void => {
    if (flooded) return;
    const at = now();
    tokens = Math.min(MESSAGES_BURST_MAX, tokens + ((at - last) * MESSAGES_PER_SECOND_MAX) / 1000);
    last = at;
    if (tokens >= 1) {
      tokens -= 1;
      return;
    }
    flooded = true;
    onFlood();
  };
  transport.onmessage = (message) => {
    if (answersOwed > 0 && !("method" in message) && "id" in message) {
      answersOwed--;
      return;
    }
    count();
  };
  // A line that is no message (not JSON, or JSON the SDK's schema refuses) reaches onerror, never
  // onmessage, and costs the host a parse that throws: counted alike, or a server writing "x" or
  // "{}" lines as fast as its pipe took them kept the host's thread ~80-100% busy, never stopped.
  // Its other errors (a failed spawn, a broken pipe) are a handful and count too.
  transport.onerror = () => count();
  return count;
}

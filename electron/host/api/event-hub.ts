import type { ApiEventName, ApiEvents } from "../../../shared/api/api-contract.js";

import { Emitter } from "../util/emitter.js";

type Listener<E extends ApiEventName> = (payload: ApiEvents[E]) => void;
type HubEvents = { [E in ApiEventName]: Listener<E> };

/**
 * The host's typed event bus: every transport (IPC, WebSocket) subscribes here, so an
 * event is raised once and reaches every face of the app.
 */
export class EventHub {
  // One broken subscriber (a closed socket) must not stop the others; it is not worth a log.
  readonly #events = new Emitter<HubEvents>();

  on<E extends ApiEventName>(event: E, listener: Listener<E>): () => void {
    return this.#events.on(event, listener as HubEvents[E]);
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    this.#events.emit(event, ...([payload] as Parameters<HubEvents[E]>));
  }
}

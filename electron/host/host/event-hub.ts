import type { ApiEventName, ApiEvents } from "../../../shared/api/api-contract.js";

type Listener<E extends ApiEventName> = (payload: ApiEvents[E]) => void;

/**
 * The host's typed event bus: every transport (IPC, WebSocket) subscribes here, so an
 * event is raised once and reaches every face of the app.
 */
export class EventHub {
  private readonly listeners = new Map<ApiEventName, Set<Listener<ApiEventName>>>();

  on<E extends ApiEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<ApiEventName>);
    return () => set.delete(listener as Listener<ApiEventName>);
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(payload);
      } catch {
        // One broken subscriber (a closed socket) must not stop the others.
      }
    }
  }
}

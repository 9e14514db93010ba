import { quoteName } from "./messages.js";

/** The private call that first tainted a client. */
export interface TaintRecord {
  client: string;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  /** The Python name the code used, so refusals can name it the way the code knows it. */
  pyName: string;
  /**
   * Set when it was no call but a workspace holding private data that the client opened: its
   * name (then `server` is "workspace" and `tool` that name).
   */
  workspace?: string;
  at: Date;
}

export type TaintChange =
  | { type: "tainted"; record: TaintRecord }
  | { type: "reset"; client: string; previous: TaintRecord };

export type TaintListener = (change: TaintChange) => void;

export interface TaintRegistryOptions {
  now?: () => Date;
  /** Where a throwing listener's error goes; listeners must not be able to undo a taint. */
  onListenerError?: (error: unknown) => void;
}

/**
 * Which clients have called a private tool. It lives in memory for the life of the host on
 * purpose: the rule lasts until the app quits or the user resets it, never per run, because
 * what one run printed is in the model's context and the next run can be written from it.
 */
export class TaintRegistry {
  readonly #records = new Map<string, TaintRecord>();
  readonly #listeners = new Set<TaintListener>();
  readonly #now: () => Date;
  readonly #onListenerError: (error: unknown) => void;

  constructor(options: TaintRegistryOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#onListenerError = options.onListenerError ?? (() => undefined);
  }

  isTainted(client: string): boolean {
    return this.#records.has(client);
  }

  get(client: string): TaintRecord | undefined {
    return this.#records.get(client);
  }

  list(): TaintRecord[] {
    return [...this.#records.values()];
  }

  /**
   * Marks `client` tainted by a private call. Only the first call is kept (it is what the
   * user needs to see); later private calls change nothing. Synchronous, so a caller can
   * check and set without another call slipping in between. Returns the new record, or
   * undefined when the client was already tainted.
   */
  taint(
    client: string,
    call: { server: string; tool: string; pyName: string; workspace?: string },
  ): TaintRecord | undefined {
    if (this.#records.has(client)) return undefined;
    const record: TaintRecord = {
      client,
      server: call.server,
      tool: call.tool,
      pyName: call.pyName,
      ...(call.workspace === undefined ? {} : { workspace: call.workspace }),
      at: this.#now(),
    };
    this.#records.set(client, record);
    this.#notify({ type: "tainted", record });
    return record;
  }

  /** Clears a client's taint (the user's choice in the UI). Returns whether it was tainted. */
  reset(client: string): boolean {
    const previous = this.#records.get(client);
    if (previous === undefined) return false;
    this.#records.delete(client);
    this.#notify({ type: "reset", client, previous });
    return true;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: TaintListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #notify(change: TaintChange): void {
    // The state has already changed: a listener that throws must neither undo it nor keep
    // the other listeners (the audit log, the UI) from hearing about it.
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}

/** Why the taint rule refuses a call of `tool` by `client`, or undefined when it may go out. */
export function taintRefusal(
  taint: TaintRegistry,
  client: string,
  tool: { private: boolean },
  shown: string,
): string | undefined {
  const tainted = taint.get(client);
  if (tainted === undefined || tool.private) return undefined;
  if (tainted.workspace !== undefined) {
    return (
      `${shown} refused: this client opened the workspace ${quoteName(tainted.workspace)}, which ` +
      "holds data from a private tool, so only private tools can be called; only the user can change that, in Code Mode."
    );
  }
  return (
    `${shown} refused: this client called the private tool ${quoteName(tainted.pyName)}, ` +
    "so only private tools can be called; only the user can change that, in Code Mode."
  );
}

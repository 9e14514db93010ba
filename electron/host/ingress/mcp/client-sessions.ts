import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientView } from "../../../../shared/api/api-views.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { SocketTransport } from "./socket-transport.js";
import {
  createRunPythonServer,
  type RunPythonServerOptions,
  type RunPythonService,
} from "./run-python-server.js";

/** A client's self-reported version is cut to this before it goes into the client's view. */
export const CLIENT_VERSION_MAX_CHARS = 100;

/**
 * clients.changed reaches the UI at most once per this (the last change always reaches it):
 * a client connecting and leaving in a loop would send a page of clients per connection.
 */
export const CLIENTS_CHANGED_MIN_INTERVAL_MS = 100;

interface Session {
  view: ClientView;
  controller: AbortController;
  transport: Transport;
}

export interface ClientSessionEvents {
  connected(view: ClientView): void;
  disconnected(view: ClientView): void;
  changed(views: ClientView[]): void;
  /** A shim's connection was cut off for leaving `unreadBytes` of answers unread. */
  cutOff?(view: ClientView, unreadBytes: number): void;
}

/** The taint key of a client: its self-reported name, bounded. */
export function clientKey(info: { name: string; version: string } | undefined): string {
  const name = (info?.name ?? "").trim() || "unknown client";
  return name.slice(0, HOST_LIMITS.clientNameMaxChars);
}

/**
 * One MCP session per connection (one SDK Server each), all sharing the host's run_python.
 * A connection that goes away cancels its runs, so their containers are removed at once.
 */
export class ClientSessions {
  private readonly sessions = new Map<string, Session>();
  /** The clients.changed emission waiting for its turn (see changed()). */
  private changedTimer: ReturnType<typeof setTimeout> | undefined;
  private lastChangedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly service: RunPythonService,
    private readonly version: string,
    private readonly events: ClientSessionEvents,
    private readonly now: () => Date = () => new Date(),
    /** A file a run attached, for its own client's resources/read; absent: none can be read. */
    private readonly readAttachment?: RunPythonServerOptions["readAttachment"],
  ) {}

  /** A local-socket connection (a shim): one JSON-RPC message per line each way. */
  async attachSocket(socket: Duplex): Promise<string> {
    const transport: SocketTransport = new SocketTransport(socket, (unreadBytes) => {
      // Cut-offs are rare (each takes megabytes left unread): a walk of the sessions is fine.
      const session = [...this.sessions.values()].find((s) => s.transport === transport);
      if (session) this.events.cutOff?.({ ...session.view }, unreadBytes);
    });
    return this.attach(transport, "socket", () => socket.destroy());
  }

  /** Any MCP transport (an HTTP session); `dispose` runs once the session has ended. */
  async attach(
    transport: Transport,
    transportKind: ClientView["transport"],
    dispose: () => void = () => undefined,
  ): Promise<string> {
    const connectionId = randomUUID();
    const controller = new AbortController();
    const view: ClientView = {
      connectionId,
      name: "unknown client",
      version: "",
      transport: transportKind,
      since: this.now().toISOString(),
      runs: 0,
      running: 0,
    };
    const counted: RunPythonService = {
      description: () => this.service.description(),
      onCatalogChange: (listener) => this.service.onCatalogChange(listener),
      run: async (input, context) => {
        view.runs++;
        view.running++;
        this.changed();
        try {
          return await this.service.run(input, context);
        } finally {
          view.running--;
          this.changed();
        }
      },
    };
    const { server, closed } = createRunPythonServer(counted, {
      clientKey,
      version: this.version,
      signal: controller.signal,
      readAttachment: this.readAttachment,
      // Logged at the connection's one initialize (a second is refused), under the name its runs
      // go by. Not at notifications/initialized: a client may send that again and again (each
      // wrote an entry, 20,000 from one connection in 5 s), or before its initialize (logged as
      // "unknown client" while its runs and taint key took the name the initialize gave).
      onInitialize: (info) => {
        view.name = clientKey(info);
        view.version = info.version.slice(0, CLIENT_VERSION_MAX_CHARS);
        this.events.connected({ ...view });
        this.changed();
      },
    });
    this.sessions.set(connectionId, { view, controller, transport });
    void closed.then(() => {
      // A connection that goes away takes its runs with it.
      controller.abort();
      dispose();
      if (this.sessions.delete(connectionId)) {
        this.events.disconnected({ ...view });
        this.changed();
      }
    });
    await server.connect(transport);
    return connectionId;
  }

  list(): ClientView[] {
    return [...this.sessions.values()].map((s) => ({ ...s.view }));
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const session of all) session.controller.abort();
    await Promise.allSettled(all.map((s) => s.transport.close()));
    clearTimeout(this.changedTimer);
    this.changedTimer = undefined;
  }

  /**
   * Tells the UI the list changed: at once when the last emission is at least
   * CLIENTS_CHANGED_MIN_INTERVAL_MS old, else once at the end of that interval with the
   * list as it is then. A client holding the token that connects and leaves in a loop (~1,100
   * times a second) would otherwise send every UI subscriber a page of up to 100 clients per
   * connect and per disconnect, and the UI would re-render as often.
   */
  private changed(): void {
    if (this.changedTimer !== undefined) return;
    // A monotonic clock, not this.now(): a wall clock set back (NTP, the user) would make the
    // wait as long as the step back, and the UI would see no change of clients meanwhile.
    const wait = this.lastChangedAt + CLIENTS_CHANGED_MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) {
      this.emitChanged();
      return;
    }
    this.changedTimer = setTimeout(() => {
      this.changedTimer = undefined;
      this.emitChanged();
    }, wait);
    this.changedTimer.unref?.();
  }

  private emitChanged(): void {
    this.lastChangedAt = performance.now();
    this.events.changed(this.list());
  }
}

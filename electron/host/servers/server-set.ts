// All wrapped servers of one config, started and stopped together.
//
// open() is the `serve` behaviour: every server must start, or none stays up.
// replace() applies a new config live: only added or changed entries (re)start and
// a failure there is reported, not fatal, so replace() on an empty set doubles as
// a tolerant open for the app. The app's edits do not wait for those starts (see
// ReplaceOptions): a server can take up to its start timeout to answer.

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCaller } from "../core/ports/tool-caller.js";
import type { ServerTools } from "../core/catalog/catalog-types.js";
import type { ServerEntry, ServersConfig } from "../core/ports/server-config-types.js";
import {
  WrappedServer,
  WrappedServerError,
  type CallOptions,
  type ServerState,
  type WrappedServerOptions,
} from "./wrapped-server.js";
import { sameLaunch } from "./same-launch.js";
import { hashedTools } from "./tool-listing.js";
import { sameList } from "../../../shared/same-list.js";
import { Emitter } from "../util/emitter.js";
import { SerialQueue } from "../util/serial-queue.js";
import { waitAtMost } from "../util/wait-at-most.js";

export interface ServerSetEvents {
  /** A server's status changed. */
  status: (server: string, state: ServerState) => void;
  /**
   * What the catalog is built from changed for one server: its tool list, its
   * allow/private policy (replace() without a restart), or its removal (tools []).
   */
  tools: (server: string, tools: readonly Tool[]) => void;
}

export interface ServerSetOptions {
  /** Passed to every WrappedServer (transport factory, clock, backoff). */
  serverOptions?: WrappedServerOptions;
}

export interface ReplaceResult {
  /** New names, started. */
  added: string[];
  /** Entries whose command, args or env changed: stopped, then started again. */
  restarted: string[];
  /** Entries whose allow/private/secretEnv changed: updated in place, still running. */
  updated: string[];
  unchanged: string[];
  /** Names no longer in the config: stopped. */
  removed: string[];
  /** Added or restarted servers that did not start (they stay "failed"). */
  failed: StartFailure[];
}

export interface StartFailure {
  server: string;
  error: string;
}

export interface ReplaceOptions {
  /**
   * Given, replace() resolves once removed and changed servers have stopped and the added
   * and restarted ones are starting, without waiting for them: each start that fails comes
   * here instead of in `failed`, unless a later replace() took the server out meanwhile or
   * restart() took its start over.
   * A user saving a server should not watch "Saving…" for as long as a slow `npx` download
   * or a server that never answers (up to SERVER_START_TIMEOUT_MS); the server's
   * status shows its start. It also frees the next edit from waiting for these starts.
   */
  onStartFailed?: (failure: StartFailure) => void;
  /**
   * With onStartFailed: replace() waits for those starts at most this long (the app's start,
   * so that the servers up by then are in the clients' first tool list).
   */
  startWaitMs?: number;
}

function failureOf(server: WrappedServer, reason: unknown): StartFailure {
  return { server: server.name, error: reason instanceof Error ? reason.message : String(reason) };
}

function samePolicy(a: ServerEntry, b: ServerEntry): boolean {
  const samePrivate =
    typeof a.private === "boolean" || typeof b.private === "boolean"
      ? a.private === b.private
      : sameList(a.private, b.private);
  return sameList(a.allow, b.allow) && samePrivate && sameList(a.secretEnv, b.secretEnv);
}

export class ServerSet implements ToolCaller {
  private members = new Map<string, WrappedServer>();
  private readonly unsubscribers = new Map<WrappedServer, () => void>();
  private readonly serverOptions: WrappedServerOptions;
  private closed = false;
  /** open() and replace() run one at a time, in call order. */
  private readonly queue = new SerialQueue();
  // A faulty listener must not stop the others or a replace() half way.
  private readonly events = new Emitter<ServerSetEvents>((event, error) =>
    console.error(`ServerSet: ${String(event)} listener threw:`, error),
  );

  constructor(config: ServersConfig, options: ServerSetOptions = {}) {
    this.serverOptions = options.serverOptions ?? {};
    for (const [name, entry] of config.servers) this.members.set(name, this.create(name, entry));
  }

  /** The servers, in config order. */
  get servers(): ReadonlyMap<string, WrappedServer> {
    return this.members;
  }

  get(name: string): WrappedServer | undefined {
    return this.members.get(name);
  }

  /** The current config (entries as last given to the constructor or replace()). */
  get config(): ServersConfig {
    return {
      servers: new Map([...this.members].map(([name, server]) => [name, server.entry])),
    };
  }

  /** Each server's last listed tools, in config order. */
  get tools(): ReadonlyMap<string, readonly Tool[]> {
    return new Map([...this.members].map(([name, server]) => [name, server.tools]));
  }

  /** The catalog builder's input: tools plus each entry's allow/private policy. */
  serverTools(): ServerTools[] {
    return [...this.members].map(([name, server]) => ({
      server: name,
      tools: hashedTools(server.tools, server.forms),
      allow: server.entry.allow,
      private: server.entry.private,
    }));
  }

  on<K extends keyof ServerSetEvents>(event: K, listener: ServerSetEvents[K]): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Starts every server. If one fails, all are closed (the set with them) and this
   * rejects with that server's ServerStartError: its name and last stderr lines.
   */
  open(): Promise<void> {
    return this.serialized(async () => {
      this.assertOpen();
      try {
        await Promise.all([...this.members.values()].map((server) => server.start()));
      } catch (error) {
        this.closed = true;
        await this.closeMembers();
        throw error;
      }
    });
  }

  /**
   * Applies a new config: unchanged servers keep running, changed ones restart, new
   * ones start, removed ones stop. Start failures are reported in the result.
   */
  replace(config: ServersConfig, options: ReplaceOptions = {}): Promise<ReplaceResult> {
    return this.serialized(async () => {
      this.assertOpen();
      const result: ReplaceResult = {
        added: [],
        restarted: [],
        updated: [],
        unchanged: [],
        removed: [],
        failed: [],
      };
      const previous = this.members;
      const next = new Map<string, WrappedServer>();
      const toStop: WrappedServer[] = [];
      const toStart: WrappedServer[] = [];
      const updated: WrappedServer[] = [];

      for (const [name, entry] of config.servers) {
        const existing = previous.get(name);
        if (existing && sameLaunch(existing.entry, entry)) {
          if (samePolicy(existing.entry, entry)) {
            result.unchanged.push(name);
          } else {
            existing.updateEntry(entry);
            result.updated.push(name);
            updated.push(existing);
          }
          next.set(name, existing);
          continue;
        }
        if (existing) {
          toStop.push(existing);
          result.restarted.push(name);
        } else {
          result.added.push(name);
        }
        const server = this.create(name, entry);
        next.set(name, server);
        toStart.push(server);
      }
      for (const [name, server] of previous) {
        if (!config.servers.has(name)) {
          toStop.push(server);
          result.removed.push(name);
        }
      }

      // Swap before any await: callTool and close() see the new set at once.
      this.members = next;
      // Stop before starting, so a changed server never runs twice (lock files, ports).
      await Promise.all(toStop.map((server) => this.retire(server)));
      for (const server of updated) this.emit("tools", server.name, server.tools);

      const { onStartFailed, startWaitMs } = options;
      if (onStartFailed) {
        const starts = toStart.map((server) =>
          server.start().catch((reason: unknown) => {
            // Taken out by a later replace() (or close()) while starting: not a failure. Nor is
            // a start superseded by restart() (the Restart button): that start is the server's
            // now, and a start that fails leaves the server "failed" before it rejects.
            if (
              this.members.get(server.name) === server &&
              !this.closed &&
              server.status === "failed"
            )
              onStartFailed(failureOf(server, reason));
          }),
        );
        if (startWaitMs) await waitAtMost(Promise.all(starts), startWaitMs);
        return result;
      }
      const outcomes = await Promise.allSettled(toStart.map((server) => server.start()));
      outcomes.forEach((outcome, i) => {
        const server = toStart[i];
        if (outcome.status === "rejected" && server)
          result.failed.push(failureOf(server, outcome.reason));
      });
      return result;
    });
  }

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallToolResult> {
    const member = this.members.get(server);
    if (!member) {
      throw new WrappedServerError("unknown-server", server, `No server named "${server}"`);
    }
    return member.callTool(tool, args, opts);
  }

  /** Stops every server for good. Does not wait for a running open()/replace(): it ends them. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeMembers();
  }

  private async closeMembers(): Promise<void> {
    await Promise.all([...this.members.values()].map((server) => server.close()));
  }

  /** Stops a server that left the set; its tools leave the catalog. */
  private async retire(server: WrappedServer): Promise<void> {
    this.unsubscribers.get(server)?.();
    this.unsubscribers.delete(server);
    await server.close();
    this.emit("tools", server.name, []);
  }

  private create(name: string, entry: ServerEntry): WrappedServer {
    const server = new WrappedServer(name, entry, this.serverOptions);
    const offStatus = server.on("status", (state) => this.emit("status", name, state));
    const offTools = server.on("tools", (tools) => this.emit("tools", name, tools));
    this.unsubscribers.set(server, () => {
      offStatus();
      offTools();
    });
    return server;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("This server set is closed");
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  private emit<K extends keyof ServerSetEvents>(
    event: K,
    ...args: Parameters<ServerSetEvents[K]>
  ): void {
    this.events.emit(event, ...args);
  }
}

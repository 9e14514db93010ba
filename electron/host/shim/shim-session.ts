// The client's MCP session, kept across connections to the app. While connected, bytes pass
// both ways untouched. When the app goes away with the client still there, the requests in
// flight get an error at once, the shim reconnects with back-off (shim.ts decides whether it
// may start the app again), replays the client's `initialize` (the new app's answer is not
// passed on: the client has had one) and `notifications/initialized`, sends what the client
// said meanwhile, and goes on: the client never has to initialise again.

import type net from "node:net";
import type { Readable, Writable } from "node:stream";
import { SHIM_EXIT, SHIM_STOPPED_CODE } from "../ingress/local-access/local-access-constants.js";
import { terminalText } from "../util/terminal-text.js";
import { InFlight, isId, key, type Id, type Message } from "./in-flight.js";
import { replayInitialize } from "./replay-initialize.js";
import { MiB } from "../util/units.js";

/** Shim, app gone: first pause between attempts to reconnect... */
export const SHIM_RECONNECT_BACKOFF_INITIAL_MS = 200;

/** ...doubling after each failed attempt, up to this. */
export const SHIM_RECONNECT_BACKOFF_MAX_MS = 5_000;

/** Shim, app gone: it stops trying after this long, answers what waits and exits 1. */
export const SHIM_RECONNECT_GIVE_UP_MS = 10 * 60_000;

/** Shim, app gone: how long a request the client sends meanwhile waits for it to be back. */
export const SHIM_RECONNECT_REQUEST_WAIT_MS = 20_000;

/** Shim, app gone: most bytes of the client's lines it holds until it is back. */
export const SHIM_RECONNECT_QUEUE_MAX_BYTES = 16 * MiB;

/** Shim, app back: how long it waits for the answer to the `initialize` it replays. */
export const SHIM_REPLAY_WAIT_MS = 10_000;

export type Attempt =
  | { kind: "connected"; socket: net.Socket }
  /** Nothing to connect to yet: worth trying again. */
  | { kind: "absent" }
  /** transient: worth trying again (the connection broke; a dying app can do that). */
  | { kind: "failed"; message: string; transient?: boolean };

export interface ReconnectLimits {
  backoffInitialMs: number;
  backoffMaxMs: number;
  giveUpMs: number;
  requestWaitMs: number;
  queueMaxBytes: number;
  replayWaitMs: number;
}

export const RECONNECT_LIMITS: ReconnectLimits = {
  backoffInitialMs: SHIM_RECONNECT_BACKOFF_INITIAL_MS,
  backoffMaxMs: SHIM_RECONNECT_BACKOFF_MAX_MS,
  giveUpMs: SHIM_RECONNECT_GIVE_UP_MS,
  requestWaitMs: SHIM_RECONNECT_REQUEST_WAIT_MS,
  queueMaxBytes: SHIM_RECONNECT_QUEUE_MAX_BYTES,
  replayWaitMs: SHIM_REPLAY_WAIT_MS,
};

export interface SessionOptions {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** One try at a new connection; `attempt` counts from 0 in each outage. */
  reconnect: (attempt: number) => Promise<Attempt>;
  limits?: Partial<ReconnectLimits>;
}

/** The answer to a request in flight when the app went away. */
export const STOPPED_MESSAGE =
  "Code Mode stopped: it went away before answering (the app quit, crashed or is restarting). " +
  "This request may or may not have run: Code Mode's audit log says. The shim is reconnecting; " +
  "later requests go to Code Mode once it is back.";

function answeredText(count: number): string {
  return `answered ${count} request(s) in flight with an error`;
}

interface Queued {
  line: string;
  bytes: number;
  id?: Id;
  timer?: NodeJS.Timeout;
}

export function runSession(socket: net.Socket, options: SessionOptions): Promise<number> {
  return new ShimSession(options).run(socket);
}

class ShimSession {
  private readonly limits: ReconnectLimits;
  private readonly inFlight = new InFlight({
    client: (line, message) => this.clientLine(line, message),
    host: (_line, message) => this.hostLine(message),
  });
  private socket: net.Socket | null = null;
  /** The client's `initialize`; replayed to a new app once the first one answered it. */
  private init: { line: string; id: Id; answered: boolean } | null = null;
  private initialized: string | null = null;
  /** What the client said while there was no app, in order. */
  private queue: Queued[] = [];
  private queuedBytes = 0;
  /** The chunk being read from the client went out as it is (no need to queue its lines). */
  private forwarding = false;
  /** Over-long client line cut by an outage: its rest must not reach the new app. */
  private discarding = false;
  private clientEnded = false;
  /** The app went away and is not back. */
  private stopped = false;
  private settled = false;
  private resolve: (code: number) => void = () => undefined;

  constructor(private readonly options: SessionOptions) {
    this.limits = { ...RECONNECT_LIMITS, ...options.limits };
  }

  run(socket: net.Socket): Promise<number> {
    const { stdin, stdout } = this.options;
    return new Promise((resolve) => {
      this.resolve = resolve;
      // Once the host has ended and everything it sent is written out, we are done.
      stdout.on("finish", () => this.finish(this.stopped ? SHIM_EXIT.failed : SHIM_EXIT.ok));
      // The client closed our stdout: nobody is left to talk to.
      stdout.on("error", () => this.finish(this.stopped ? SHIM_EXIT.failed : SHIM_EXIT.ok));
      stdin.on("error", () => this.clientGone());
      stdin.on("end", () => this.clientGone());
      stdin.on("data", (chunk: Buffer | string) =>
        this.fromClient(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
      );
      this.attach(socket);
    });
  }

  private finish(code: number): void {
    if (this.settled) return;
    this.settled = true;
    // A paused stdin holds no event-loop reference, so the process can exit.
    this.options.stdin.pause();
    this.socket?.destroy();
    for (const entry of this.queue) clearTimeout(entry.timer);
    this.resolve(code);
  }

  private fromClient(chunk: Buffer): void {
    const socket = this.socket;
    if (socket !== null) {
      let out = chunk;
      if (this.discarding) {
        const end = chunk.indexOf(0x0a);
        out = end === -1 ? chunk.subarray(chunk.length) : chunk.subarray(end + 1);
        if (end !== -1) this.discarding = false;
      }
      if (out.length > 0 && !socket.write(out)) {
        this.options.stdin.pause();
        socket.once("drain", () => this.options.stdin.resume());
      }
    }
    this.forwarding = socket !== null;
    this.inFlight.fromClient.push(chunk);
    this.forwarding = false;
  }

  private clientLine(line: string, message: Message | undefined): void {
    if (message?.method === "initialize" && isId(message.id)) {
      this.init = { line, id: message.id, answered: false };
    } else if (message?.method === "notifications/initialized") {
      this.initialized = line;
    }
    if (!this.forwarding && !this.clientEnded) this.enqueue(line, message);
  }

  private hostLine(message: Message | undefined): void {
    const init = this.init;
    if (init === null || init.answered || message === undefined || "method" in message) return;
    if (isId(message.id) && key(message.id) === key(init.id)) init.answered = true;
  }

  private enqueue(line: string, message: Message | undefined): void {
    const bytes = Buffer.byteLength(line) + 1;
    const id = typeof message?.method === "string" && isId(message.id) ? message.id : undefined;
    // An answer to a request of the app that went away: the new one never asked it.
    if (message !== undefined && message.method === undefined && "id" in message) return;
    if (this.queuedBytes + bytes > this.limits.queueMaxBytes) {
      if (id !== undefined) {
        this.answer(id, `Code Mode is not back yet, and the shim holds no more requests for it.`);
      }
      return;
    }
    const entry: Queued = { line, bytes, id };
    if (id !== undefined) {
      entry.timer = setTimeout(() => {
        this.dequeue(entry);
        this.answer(
          id,
          `Code Mode is not back yet: the shim waited ${this.limits.requestWaitMs / 1000} s for it ` +
            `after it went away, and goes on trying. This request was not sent; send it again later.`,
        );
      }, this.limits.requestWaitMs);
    }
    this.queue.push(entry);
    this.queuedBytes += bytes;
  }

  private dequeue(entry: Queued): void {
    const at = this.queue.indexOf(entry);
    if (at === -1) return;
    this.queue.splice(at, 1);
    this.queuedBytes -= entry.bytes;
    clearTimeout(entry.timer);
  }

  private answer(id: Id, message: string): void {
    this.inFlight.forget(id);
    const error = { code: SHIM_STOPPED_CODE, message };
    this.options.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error }) + "\n");
  }

  private attach(socket: net.Socket, leftover?: Buffer): void {
    const { stdout } = this.options;
    this.socket = socket;
    this.stopped = false;
    let ended = false;
    let lost = false;
    const gone = (how: "end" | "close"): void => {
      if (lost) return;
      lost = true;
      this.socket = null;
      socket.destroy();
      this.hostGone(how);
    };
    const fromHost = (chunk: Buffer): void => {
      if (!stdout.write(chunk)) {
        socket.pause();
        stdout.once("drain", () => socket.resume());
      }
      this.inFlight.fromHost.push(chunk);
    };
    socket.on("data", fromHost);
    socket.on("error", () => undefined);
    socket.on("end", () => {
      ended = true;
      gone("end");
    });
    socket.on("close", () => gone(ended ? "end" : "close"));
    // Paused by replayInitialize, or after the handshake; data flows from the next tick,
    // after what already came with the answer to the replay.
    socket.resume();
    if (leftover !== undefined && leftover.length > 0) fromHost(leftover);
  }

  private hostGone(how: "end" | "close"): void {
    const { stdout, stderr } = this.options;
    if (this.settled) return;
    if (this.clientEnded) {
      // The client said goodbye and the host answered what it had: the usual end. Nobody
      // waits for answers any more.
      if (how === "close") this.stopped = true;
      if (stdout.writableFinished || stdout.destroyed) this.finish(SHIM_EXIT.ok);
      else stdout.end();
      return;
    }
    this.stopped = true;
    // A line of the host cut short would swallow the first of our answers: end it.
    if (this.inFlight.fromHost.midLine()) stdout.write("\n");
    this.inFlight.fromHost.reset();
    const ids = this.inFlight.pending();
    for (const id of ids) this.answer(id, STOPPED_MESSAGE);
    this.inFlight.clear();
    // An `initialize` it never answered got the error: the client will not go on with it.
    if (this.init !== null && !this.init.answered) this.init = null;
    stderr.write(
      (how === "end"
        ? "codemode shim: Code Mode stopped: it closed the connection"
        : "codemode shim: Code Mode stopped: lost the connection to Code Mode") +
        (ids.length > 0 ? `; ${answeredText(ids.length)}` : "") +
        "\n",
    );
    stderr.write(
      `codemode shim: reconnecting; requests sent meanwhile wait up to ${this.limits.requestWaitMs / 1000} s each\n`,
    );
    void this.reconnectLoop();
  }

  private clientGone(): void {
    if (this.clientEnded) return;
    this.clientEnded = true;
    if (this.socket !== null) {
      // Half-closes the socket; the host answers what is in flight, then ends.
      this.socket.end();
      return;
    }
    // No app to answer anything: what waits for one is answered now, before stdout ends.
    const queue = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const entry of queue) {
      clearTimeout(entry.timer);
      if (entry.id !== undefined) {
        this.answer(
          entry.id,
          `Code Mode is not back yet, and the client ended its input while the shim waited for it. ` +
            `This request was not sent.`,
        );
      }
    }
    this.options.stdout.end();
  }

  private async reconnectLoop(): Promise<void> {
    const startedAt = Date.now();
    let delay = this.limits.backoffInitialMs;
    for (let attempt = 0; ; attempt++) {
      if (this.settled || this.clientEnded) return;
      const result = await this.options.reconnect(attempt);
      if (this.settled || this.clientEnded) {
        if (result.kind === "connected") result.socket.destroy();
        return;
      }
      // A refusal (an impostor at the socket, an app that says no) will not change by waiting.
      if (result.kind === "failed" && result.transient !== true) {
        return this.giveUp(result.message);
      }
      if (result.kind === "connected") {
        const replay = await this.replay(result.socket);
        if (replay.kind === "ok") return;
        if (replay.kind === "refused") return this.giveUp(replay.message);
      }
      const left = startedAt + this.limits.giveUpMs - Date.now();
      if (left <= 0) {
        return this.giveUp(
          `Code Mode did not come back within ${this.limits.giveUpMs / 60_000} min`,
        );
      }
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, this.limits.backoffMaxMs);
    }
  }

  /**
   * Tells the new app what the client told the old one, takes the socket into use and
   * sends what waited. "again": the new app went away too; any other text: it refused.
   */
  private async replay(
    socket: net.Socket,
  ): Promise<{ kind: "ok" } | { kind: "again" } | { kind: "refused"; message: string }> {
    let leftover: Buffer = Buffer.alloc(0);
    if (this.init?.answered === true) {
      const answer = await replayInitialize(socket, this.init, this.limits.replayWaitMs);
      if (answer.kind !== "ok") {
        socket.destroy();
        return answer.kind === "refused" ? answer : { kind: "again" };
      }
      leftover = answer.rest;
      if (this.initialized !== null) socket.write(this.initialized + "\n");
    }
    if (this.settled || this.clientEnded || socket.destroyed) {
      socket.destroy();
      return { kind: this.settled || this.clientEnded ? "ok" : "again" };
    }
    for (const entry of this.queue) {
      clearTimeout(entry.timer);
      socket.write(entry.line + "\n");
    }
    this.queue = [];
    this.queuedBytes = 0;
    // The client's unfinished line: its start went to the old app (or nowhere); all of it
    // goes to the new one, and the rest follows as the client sends it.
    const partial = this.inFlight.fromClient.partial();
    if (partial === null) this.discarding = true;
    else if (partial.length > 0) socket.write(partial);
    this.attach(socket, leftover);
    this.options.stderr.write("codemode shim: reconnected to Code Mode; the session goes on\n");
    return { kind: "ok" };
  }

  private giveUp(why: string): void {
    const { stdout, stderr } = this.options;
    if (this.settled) return;
    const message = `${why}: the shim gave up reconnecting. Start Code Mode, then restart this MCP server.`;
    for (const entry of this.queue) {
      clearTimeout(entry.timer);
      if (entry.id !== undefined) this.answer(entry.id, message);
    }
    this.queue = [];
    stderr.write(`codemode shim: ${terminalText(message)}\n`);
    if (stdout.writableFinished || stdout.destroyed) this.finish(SHIM_EXIT.failed);
    else stdout.end();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

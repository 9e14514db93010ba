// The stdio transport every wrapped server runs on, written against the MCP SDK's public
// Transport interface. The child is started in a process group of its own and stopped with its
// whole tree (process-tree.ts): the SDK's StdioClientTransport starts the child itself and stops
// only that one process, so a child of a wrapper (npx, `sh -c`) outlived every stop, restart,
// removal and Try it. Its stdout is read in linear time and counted (server-output.ts), and
// what the host sent but the child has not read yet is there to see (unreadInputBytes).
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { PassThrough, type Stream } from "node:stream";
import crossSpawn from "cross-spawn";
import {
  getDefaultEnvironment,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  OWN_PROCESS_GROUP,
  STOP_GRACE,
  endProcessTree,
  killProcessTree,
  type StopGrace,
} from "./process-tree.js";
import { ServerOutput } from "./server-output.js";
import type { ServerTransport } from "./wrapped-server-types.js";

export class ServerProcessTransport implements ServerTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  /** Past the bytes a server may write in a window (server-output.ts): told once. */
  onOutputFlood?: (() => void) | undefined;
  /** Each chunk of its stdout that ends no line (server-output.ts). */
  onChunkWithoutLine?: (() => void) | undefined;

  /** The child while it runs: what send() writes to. */
  #running: ChildProcess | undefined;
  /** The child, kept after it exited: what it started may still run until close(). */
  #child: ChildProcess | undefined;
  /** Given at once, before start(), so no early line of the child's stderr is lost. */
  readonly #stderr: PassThrough | null;
  readonly #output: ServerOutput;

  constructor(
    private readonly params: StdioServerParameters,
    private readonly grace: StopGrace = STOP_GRACE,
  ) {
    this.#stderr =
      params.stderr === "pipe" || params.stderr === "overlapped" ? new PassThrough() : null;
    this.#output = new ServerOutput({
      message: (message) => this.onmessage?.(message),
      badLine: (error) => this.onerror?.(error),
      overLong: (error) => {
        this.onerror?.(error);
        void this.close().catch(() => undefined);
      },
      flood: () => this.onOutputFlood?.(),
      chunkWithoutLine: () => this.onChunkWithoutLine?.(),
    });
  }

  get stderr(): Stream | null {
    return this.#stderr ?? this.#running?.stderr ?? null;
  }

  get pid(): number | null {
    return this.#running?.pid ?? null;
  }

  /** Bytes the host wrote to the child's stdin that it has not read yet. */
  get unreadInputBytes(): number {
    return this.#running?.stdin?.writableLength ?? 0;
  }

  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error("this transport was started already"));
    const { params } = this;
    const options: SpawnOptions = {
      env: { ...getDefaultEnvironment(), ...params.env },
      stdio: ["pipe", "pipe", params.stderr ?? "inherit"],
      ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
    };
    return new Promise<void>((resolve, reject) => {
      const child = OWN_PROCESS_GROUP
        ? // The leader of a process group of its own: the stop signals the whole group.
          spawn(params.command, params.args ?? [], { ...options, detached: true })
        : // No process groups on Windows: cross-spawn finds `npx.cmd` for `npx`, as the SDK's
          // own start does, and taskkill /T ends the tree.
          crossSpawn(params.command, params.args ?? [], {
            ...options,
            shell: false,
            windowsHide: true,
          });
      this.#running = child;
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.#running = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#output.push(chunk));
      if (this.#stderr && child.stderr) child.stderr.pipe(this.#stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#running?.stdin;
    if (!stdin) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** Ends the child's whole tree with the usual grace (process-tree.ts). */
  async close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child) await endProcessTree(child, this.grace);
    this.#output.stop();
  }

  /** Reads nothing more of its stdout: the host is stopping it for a flood. */
  stopReading(): void {
    this.#output.stop();
  }

  /** Ends the whole tree at once, no grace: for a server that floods the host. */
  killNow(): void {
    if (this.#child) killProcessTree(this.#child);
  }
}

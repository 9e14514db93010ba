// The stdio transport every wrapped server runs on: the SDK's StdioClientTransport, with the
// child started in a process group of its own and stopped with its whole tree
// (process-tree.ts). The SDK starts the child itself and stops only that one process, so a
// child of a wrapper (npx, `sh -c`) outlived every stop, restart, removal and Try it.
//
// It keeps the SDK's private fields (_process, _readBuffer) as the SDK sets them: the host reads
// a server's output with its own buffer through _readBuffer (stdio-line-buffer.ts) and watches
// the child's unread stdin through _process (server-connection.ts); server-connection.int.test.ts
// checks both are there on a started transport.
import { spawn, type ChildProcess } from "node:child_process";
import type { PassThrough } from "node:stream";
import {
  StdioClientTransport,
  getDefaultEnvironment,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  OWN_PROCESS_GROUP,
  STOP_GRACE,
  endProcessTree,
  killProcessTree,
  type StopGrace,
} from "./process-tree.js";

/** The SDK transport's private fields this one sets and reads. */
interface SdkFields {
  _process?: ChildProcess | undefined;
  _serverParams: StdioServerParameters;
  _readBuffer: { append(chunk: Buffer): void; clear(): void };
  _stderrStream: PassThrough | null;
  processReadBuffer(): void;
}

export class ProcessTreeTransport extends StdioClientTransport {
  /** The child, kept after it exited: what it started may still run until close(). */
  #child: ChildProcess | undefined;

  constructor(
    params: StdioServerParameters,
    private readonly grace: StopGrace = STOP_GRACE,
  ) {
    super(params);
  }

  private get sdk(): SdkFields {
    return this as unknown as SdkFields;
  }

  override async start(): Promise<void> {
    if (!OWN_PROCESS_GROUP) {
      // No process groups on Windows: the SDK's own start (it finds `npx.cmd` for `npx`), and
      // taskkill /T ends the tree.
      await super.start();
      this.#child = this.sdk._process;
      return;
    }
    const sdk = this.sdk;
    if (sdk._process) throw new Error("ProcessTreeTransport already started");
    const params = sdk._serverParams;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(params.command, params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...params.env },
        stdio: ["pipe", "pipe", params.stderr ?? "inherit"],
        ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
        // The leader of a process group of its own: the stop signals the whole group.
        detached: true,
      });
      sdk._process = child;
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        sdk._process = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          sdk._readBuffer.append(chunk);
          sdk.processReadBuffer();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close().catch(() => undefined);
        }
      });
      if (sdk._stderrStream && child.stderr) child.stderr.pipe(sdk._stderrStream);
    });
  }

  /** Ends the child's whole tree with the usual grace (process-tree.ts). */
  override async close(): Promise<void> {
    const child = this.#child ?? this.sdk._process;
    this.#child = undefined;
    this.sdk._process = undefined;
    if (child) await endProcessTree(child, this.grace);
    this.sdk._readBuffer.clear();
  }

  /** Ends the whole tree at once, no grace: for a server that floods the host. */
  killNow(): void {
    const child = this.#child ?? this.sdk._process;
    if (child) killProcessTree(child);
  }
}

// One sandbox container on a Docker-API engine, as the engine boundary's EngineContainer: the
// attach (Docker's 8-byte frames split by DockerStreamDemux), start, wait, kill and removal.
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type Dockerode from "dockerode";
import { removeContainer } from "../containers/container-removal.js";
import { DockerStreamDemux } from "../containers/docker-stream-demux.js";
import { refusedOr } from "../engine-refused.js";
import type { EngineFlavour } from "./engine-flavour.js";
import { memoryKilled } from "./podman-quirks.js";
import type { ContainerExit, EngineContainer, SandboxAttach } from "./sandbox-engine.js";

/** Docker's answer for a container that is not (or no longer) there. */
function isGone(error: unknown): boolean {
  return (error as { statusCode?: number } | null)?.statusCode === 404;
}

class DockerAttach implements SandboxAttach {
  readonly ended: Promise<void>;
  private listener: ((stream: "stdout" | "stderr", data: Buffer) => void) | null = null;

  constructor(private readonly stream: Duplex) {
    const demux = new DockerStreamDemux((kind, data) => this.listener?.(kind, data));
    stream.on("data", (chunk: Buffer) => demux.push(chunk));
    this.ended = new Promise((resolve) => {
      stream.once("end", () => resolve());
      stream.once("close", () => resolve());
      stream.once("error", () => resolve());
    });
  }

  onData(listener: (stream: "stdout" | "stderr", data: Buffer) => void): void {
    this.listener = listener;
  }

  write(text: string): void {
    if (!this.stream.destroyed) this.stream.write(text);
  }

  get unreadBytes(): number {
    return this.stream.destroyed ? 0 : this.stream.writableLength;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  destroy(): void {
    this.stream.destroy();
  }
}

export class DockerContainer implements EngineContainer {
  /** Aborts an attach still under way when the container is removed. */
  private readonly attaching = new AbortController();

  constructor(
    private readonly handle: Dockerode.Container,
    /** How the engine's exit report reads (Podman's lacks OOMKilled: podman-quirks.ts). */
    private readonly flavour: EngineFlavour | null,
  ) {}

  get id(): string {
    return this.handle.id;
  }

  async attach(): Promise<SandboxAttach> {
    // A refused attach leaves its request open on Podman (the hijack's body never ends): it is
    // aborted on removal, or its socket kept the process alive after the run had failed.
    const stream = (await this.handle
      .attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
        abortSignal: this.attaching.signal,
      })
      .catch((error: unknown) => {
        throw refusedOr(error);
      })) as Duplex;
    // Over TCP (a remote engine) each protocol line must go out at once: with Nagle's
    // algorithm a line waited for the previous one's delayed ACK (about 40 ms a run).
    (stream as Partial<Socket>).setNoDelay?.(true);
    return new DockerAttach(stream);
  }

  async start(): Promise<void> {
    await this.handle.start().catch((error: unknown) => {
      throw refusedOr(error);
    });
  }

  async stopped(): Promise<boolean> {
    try {
      await this.handle.wait();
      return true;
    } catch {
      return false;
    }
  }

  async wait(): Promise<ContainerExit> {
    try {
      const waited = (await this.handle.wait()) as { StatusCode?: number };
      const info = await this.handle.inspect();
      return {
        exitCode: waited.StatusCode ?? info.State.ExitCode ?? null,
        oomKilled: memoryKilled(info.State, this.flavour),
      };
    } catch {
      return { exitCode: null, oomKilled: false };
    }
  }

  async inspect(): Promise<{ running: boolean } | null> {
    try {
      const info = await this.handle.inspect();
      return { running: info.State.Running };
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  async kill(): Promise<void> {
    try {
      await this.handle.kill();
    } catch (error) {
      // Gone, or not running (409): either way it no longer runs.
      const status = (error as { statusCode?: number } | null)?.statusCode;
      if (status !== 404 && status !== 409) throw error;
    }
  }

  remove(): Promise<void> {
    this.attaching.abort();
    return removeContainer(this.handle);
  }
}

import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type Dockerode from "dockerode";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { removeContainer } from "./container-removal.js";
import { sandboxContainerSpec, type ContainerOwner } from "./container-spec.js";
import { DockerStreamDemux } from "./docker-stream-demux.js";
import { engineFlavour, type EngineFlavour } from "../container-engine/engine-flavour.js";
import { engineSpec } from "../container-engine/engine-spec.js";
import { memoryKilled } from "../container-engine/podman-quirks.js";
import { refusedOr } from "../engine-refused.js";
import { ReadyLineMatcher } from "./ready-line.js";
import { KiB } from "../../util/units.js";

/**
 * A runner says nothing before its start line; stdout that comes early is kept up to about
 * this much (the chunk that crosses it is still kept), so the session can report it as the
 * protocol violation it is without buffering a flood.
 */
export const EARLY_OUTPUT_MAX_BYTES = 64 * KiB;

export interface ContainerExit {
  exitCode: number | null;
  oomKilled: boolean;
}

/**
 * One started sandbox container with its attach stream. The runner inside waits for
 * the nonce before reading its start line, so a container can be started ahead of
 * time (the warm pool) and claimed later. Never reused: one run, then removed.
 *
 * The runner's first line is its ready line (ready-line.ts); it is taken off the stream here,
 * so a run reads only what follows it, and `ready` says whether it came.
 */
export class SandboxContainer {
  private stdoutListener: ((chunk: Buffer) => void) | null = null;
  private early: Buffer[] = [];
  private earlyBytes = 0;
  private removal: Promise<void> | null = null;
  private opened = false;
  private started = false;
  private stagedTools: string | null = null;
  /** The attach stream ended: nothing is written to it any more by stage(). */
  private gone = false;
  /** Resolves when the attach stream ends: the runner exited or the container was killed. */
  readonly ended: Promise<void>;
  /** Bytes the container wrote to its real stderr (the runner points fd 2 at /dev/null). */
  strayStderrBytes = 0;
  /**
   * True once the runner's ready line came (its preload imports are done); false when
   * anything else came first or the stream ended before it.
   */
  readonly ready: Promise<boolean>;
  private readonly readyLine = new ReadyLineMatcher();
  private settleReady: (ready: boolean) => void = () => undefined;

  private constructor(
    readonly container: Dockerode.Container,
    readonly nonce: string,
    private readonly stream: Duplex,
    /** The runtime it was created under: the audit log names it for the run. */
    readonly runtime: SandboxRuntime,
    /** How the engine's exit report reads (Podman's lacks OOMKilled: podman-quirks.ts). */
    private readonly flavour: EngineFlavour | null = null,
  ) {
    const demux = new DockerStreamDemux((kind, data) => {
      if (kind === "stderr") {
        this.strayStderrBytes += data.length;
        return;
      }
      if (this.readyLine.state === "waiting") {
        data = this.readyLine.push(data);
        if (this.readyLine.state !== "waiting") this.settleReady(this.readyLine.state === "ready");
        if (data.length === 0) return;
      }
      if (this.stdoutListener) this.stdoutListener(data);
      else if (this.earlyBytes < EARLY_OUTPUT_MAX_BYTES) {
        // A runner says nothing before its start line; keep a little in case it does,
        // so the session can treat it as the protocol violation it is.
        this.early.push(Buffer.from(data));
        this.earlyBytes += data.length;
      }
    });
    this.ready = new Promise((resolve) => {
      this.settleReady = resolve;
    });
    stream.on("data", (chunk: Buffer) => demux.push(chunk));
    this.ended = new Promise((resolve) => {
      stream.once("end", () => resolve());
      stream.once("close", () => resolve());
      stream.once("error", () => resolve());
    });
    void this.ended.then(() => {
      this.gone = true;
      this.settleReady(false);
    });
  }

  static async start(
    docker: Dockerode,
    image: string,
    owner: ContainerOwner,
    runtime: SandboxRuntime = "runc",
    preload = false,
  ): Promise<SandboxContainer> {
    const nonce = randomBytes(16).toString("hex");
    const spec = await engineSpec(
      docker,
      sandboxContainerSpec(image, nonce, owner, runtime, preload),
    );
    const container = await docker.createContainer(spec).catch((error: unknown) => {
      throw refusedOr(error);
    });
    let stream: Duplex | null = null;
    // A refused attach leaves its request open on Podman (the hijack's body never ends): it is
    // aborted, or its socket kept the process alive after the run had failed.
    const attaching = new AbortController();
    try {
      // Attach before start so not a byte of output is missed.
      stream = (await container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
        abortSignal: attaching.signal,
      })) as Duplex;
      // Over TCP (a remote engine) each protocol line must go out at once: with Nagle's
      // algorithm a line waited for the previous one's delayed ACK (about 40 ms a run).
      (stream as Partial<Socket>).setNoDelay?.(true);
      const flavour = await engineFlavour(docker).catch(() => null);
      const started = new SandboxContainer(container, nonce, stream, runtime, flavour);
      await container.start();
      return started;
    } catch (error) {
      // An engine that refused the start may keep the attach connection open: left so, it
      // kept the process alive after the run had failed.
      stream?.destroy();
      if (stream === null) attaching.abort();
      await removeContainer(container).catch(() => undefined);
      throw refusedOr(error);
    }
  }

  get id(): string {
    return this.container.id;
  }

  onStdout(listener: (chunk: Buffer) => void): void {
    this.stdoutListener = listener;
    for (const chunk of this.early) listener(chunk);
    this.early = [];
  }

  write(text: string): void {
    if (!this.stream.destroyed) this.stream.write(text);
  }

  /**
   * Bytes written to the container's stdin that are still in the host's memory: Docker's pipes
   * are full because the runner is not reading (the code can stop its reader).
   */
  get unreadBytes(): number {
    return this.stream.destroyed ? 0 : this.stream.writableLength;
  }

  /**
   * Writes the nonce line, once: it ends whatever Docker's attach request put in stdin, and
   * the runner reads its host lines after it (a second one would be a line of its own).
   */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.write(`\n${this.nonce}\n`);
  }

  /**
   * Sends an idle warm container's runner the catalog (a `catalog` line, runner-protocol.md)
   * to parse while it waits. At most once, and never after the run's start line (both are
   * host bugs to the runner); false when not sent. A container that has gone just ignores it.
   */
  stage(toolsJson: string): boolean {
    if (this.started || this.stagedTools !== null || this.gone || this.stream.destroyed) {
      return false;
    }
    this.open();
    this.write(`{"type":"catalog","tools":${toolsJson}}\n`);
    this.stagedTools = toolsJson;
    return true;
  }

  /** The tools JSON text the runner got staged, or null when none was. */
  get staged(): string | null {
    return this.stagedTools;
  }

  /** Writes the run's start line (after the nonce line, if not sent yet); once. */
  sendStart(line: string): void {
    if (this.started) throw new Error("a sandbox container runs one start line");
    this.started = true;
    this.open();
    this.write(line);
  }

  /** Waits for the container to stop and reads how it ended. */
  async exit(): Promise<ContainerExit> {
    try {
      const waited = (await this.container.wait()) as { StatusCode?: number };
      const info = await this.container.inspect();
      return {
        exitCode: waited.StatusCode ?? info.State.ExitCode ?? null,
        oomKilled: memoryKilled(info.State, this.flavour),
      };
    } catch {
      return { exitCode: null, oomKilled: false };
    }
  }

  /** Kills and removes the container; safe to call more than once. */
  remove(): Promise<void> {
    if (!this.removal) {
      this.stream.destroy();
      // Already gone is fine; what fails after the retries is left for the startup sweep.
      this.removal = removeContainer(this.container);
    }
    return this.removal;
  }
}

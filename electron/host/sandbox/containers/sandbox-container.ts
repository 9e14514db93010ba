import { randomBytes } from "node:crypto";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import type { ContainerOwner } from "./container-spec.js";
import type { WorkspaceSlot } from "../../core/ports/run-types.js";
import type {
  ContainerExit,
  EngineContainer,
  SandboxAttach,
  SandboxEngine,
} from "../container-engine/sandbox-engine.js";
import { refusedOr } from "../engine-refused.js";
import { ReadyLineMatcher } from "./ready-line.js";
import { KiB } from "../../util/units.js";

export type { ContainerExit };

/**
 * A runner says nothing before its start line; stdout that comes early is kept up to about
 * this much (the chunk that crosses it is still kept), so the session can report it as the
 * protocol violation it is without buffering a flood.
 */
export const EARLY_OUTPUT_MAX_BYTES = 64 * KiB;

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
    readonly container: EngineContainer,
    readonly nonce: string,
    private readonly stream: SandboxAttach,
    /** The runtime it was created under: the audit log names it for the run. */
    readonly runtime: SandboxRuntime,
    /** The host folder mounted as its workspace slot, if it has one. */
    readonly slot: WorkspaceSlot | null = null,
    /** Gives the slot back once the container is gone. */
    private readonly releaseSlot: () => Promise<void> = () => Promise.resolve(),
  ) {
    stream.onData((kind, data) => {
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
    this.ended = stream.ended;
    void this.ended.then(() => {
      this.gone = true;
      this.settleReady(false);
    });
  }

  /**
   * Creates, attaches and starts one sandbox on `engine` (the hardened spec, labelled with its
   * owner); with `slot`, that host folder is mounted as its workspace slot, given back with
   * `release` once the container is removed.
   */
  static async start(
    engine: SandboxEngine,
    image: string,
    owner: ContainerOwner,
    runtime: SandboxRuntime = "runc",
    preload = false,
    slot?: WorkspaceSlot & { release(): Promise<void> },
  ): Promise<SandboxContainer> {
    const nonce = randomBytes(16).toString("hex");
    let container: EngineContainer;
    try {
      container = await engine.createSandbox({
        ...{ image, nonce, owner, runtime, preload },
        slot: slot?.dir,
      });
    } catch (error) {
      await slot?.release().catch(() => undefined);
      throw error;
    }
    let stream: SandboxAttach | null = null;
    try {
      // Attach before start so not a byte of output is missed.
      stream = await container.attach();
      const release = slot ? () => slot.release() : undefined;
      const started = new SandboxContainer(
        container,
        nonce,
        stream,
        runtime,
        slot ?? null,
        release,
      );
      await container.start();
      return started;
    } catch (error) {
      // An engine that refused the start may keep the attach connection open: left so, it
      // kept the process alive after the run had failed.
      stream?.destroy();
      await container.remove().catch(() => undefined);
      await slot?.release().catch(() => undefined);
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
    this.stream.write(text);
  }

  /**
   * Bytes written to the container's stdin that are still in the host's memory: Docker's pipes
   * are full because the runner is not reading (the code can stop its reader).
   */
  get unreadBytes(): number {
    return this.stream.unreadBytes;
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

  /** Waits for the container to stop: true once it has, false when the engine cannot say. */
  stopped(): Promise<boolean> {
    return this.container.stopped();
  }

  /** Waits for the container to stop and reads how it ended. */
  exit(): Promise<ContainerExit> {
    return this.container.wait();
  }

  private slotHeld = false;

  /**
   * Keeps the slot past the container's removal (a run keeps its workspace from it then);
   * the returned function gives it back.
   */
  holdSlot(): () => Promise<void> {
    this.slotHeld = true;
    return () => this.releaseSlot().catch(() => undefined);
  }

  /** Kills and removes the container; safe to call more than once. */
  remove(): Promise<void> {
    if (!this.removal) {
      this.stream.destroy();
      // Already gone is fine; what fails after the retries is left for the startup sweep.
      // The slot goes once the container is gone, also when its removal failed (the engine
      // away), unless a run still keeps what it left there (holdSlot).
      this.removal = this.container.remove().finally(() => {
        if (!this.slotHeld) void this.releaseSlot().catch(() => undefined);
      });
    }
    return this.removal;
  }
}

// The audit log's head kept outside its files: a hash chain alone cannot tell that its newest
// entries were cut, nor a cut at its start from retention. The checkpoint says which entry was
// the newest one written (seq and hash) and from which seq retention has removed the older
// ones; verify reports a log that ends before that head or starts after that seq. Signed with
// a key the attacker cannot read (the OS keychain in the desktop app), it also catches a chain
// rewritten with recomputed hashes.
import { createHmac, timingSafeEqual } from "node:crypto";
import { open, readFile, rename } from "node:fs/promises";
import { z } from "zod";
import { isErrno } from "../util/errno.js";
import { KiB } from "../util/units.js";

/** The head is written outside the log at most this often (and at close, and before retention). */
export const AUDIT_CHECKPOINT_INTERVAL_MS = 1000;

/** A checkpoint file larger than this is not read (it holds four short fields). */
export const AUDIT_CHECKPOINT_MAX_BYTES = 4 * KiB;

/** Beside the audit directory, in the data directory: outside the log's own files. */
export const CHECKPOINT_FILE = "audit-checkpoint.json";
/** What a checkpoint that disagreed with the log at start is renamed to end with. */
export const SET_ASIDE_SUFFIX = ".cut.json";
/** Left beside a checkpoint found missing where one must exist; verify fails while it exists. */
export const MISSING_MARKER = `.missing${SET_ASIDE_SUFFIX}`;
/** Left where the app's checkpoint key file could not be decrypted or is not a key. */
export const KEY_MARKER = `.key-unusable${SET_ASIDE_SUFFIX}`;

/** Signs checkpoints with a key kept out of the attacker's reach. */
export interface CheckpointSigner {
  /** Says where the key is, for verify's output ("OS keychain"). */
  readonly keyHolder: string;
  /** A MAC over `payload` (hex). */
  sign(payload: string): string;
}

export function hmacSigner(key: Uint8Array, keyHolder: string): CheckpointSigner {
  return {
    keyHolder,
    sign: (payload) => createHmac("sha256", key).update(payload, "utf8").digest("hex"),
  };
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const checkpointSchema = z.object({
  version: z.literal(1),
  /** The newest entry known to be on disk; 0 (and the genesis hash) before the first. */
  seq: z.number().int().nonnegative(),
  hash: hex64,
  /** Retention removed every entry before this one; 1 while it has removed nothing. */
  firstSeq: z.number().int().positive(),
  /** HMAC-SHA256 (hex) of `signedText`, or null where no key could be kept safe. */
  signature: hex64.nullable(),
});

export type Checkpoint = z.infer<typeof checkpointSchema>;
export type CheckpointHead = Pick<Checkpoint, "seq" | "hash">;

export function signedText(c: Omit<Checkpoint, "signature">): string {
  return `codemode-audit-checkpoint/${c.version} seq=${c.seq} hash=${c.hash} firstSeq=${c.firstSeq}`;
}

export function signatureMatches(c: Checkpoint, signer: CheckpointSigner): boolean {
  if (c.signature === null) return false;
  const expected = Buffer.from(signer.sign(signedText(c)), "hex");
  const actual = Buffer.from(c.signature, "hex");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export type ReadCheckpoint =
  | { state: "missing" }
  | { state: "invalid"; problem: string }
  | { state: "ok"; checkpoint: Checkpoint };

export async function readCheckpoint(file: string): Promise<ReadCheckpoint> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return { state: "missing" };
    throw error;
  }
  if (text.length > AUDIT_CHECKPOINT_MAX_BYTES) {
    return { state: "invalid", problem: `over ${AUDIT_CHECKPOINT_MAX_BYTES} bytes` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: "invalid", problem: "not valid JSON" };
  }
  const parsed = checkpointSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      state: "invalid",
      problem:
        issue === undefined ? "not a checkpoint" : `${issue.path.join(".")}: ${issue.message}`,
    };
  }
  return { state: "ok", checkpoint: parsed.data };
}

/**
 * The writer's side: the log tells it each new head, and it writes the file at most once per
 * AUDIT_CHECKPOINT_INTERVAL_MS (a sync per entry would halve the log's throughput), at
 * close, and at once before retention removes a file.
 */
export class CheckpointWriter {
  readonly #file: string;
  readonly #signer: CheckpointSigner | null;
  readonly #onError: (error: unknown) => void;
  #state: Omit<Checkpoint, "signature">;
  #written: string;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    file: string,
    signer: CheckpointSigner | null,
    state: Omit<Checkpoint, "signature" | "version">,
    onError: (error: unknown) => void,
  ) {
    this.#file = file;
    this.#signer = signer;
    this.#onError = onError;
    this.#state = { version: 1, ...state };
    this.#written = "";
  }

  get state(): Omit<Checkpoint, "signature"> {
    return { ...this.#state };
  }

  noteHead(head: CheckpointHead): void {
    this.#state = { ...this.#state, seq: head.seq, hash: head.hash };
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.flush().catch(this.#onError);
    }, AUDIT_CHECKPOINT_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Before retention removes the entries below `firstSeq`: a cut found later is then not it. */
  async noteRetention(firstSeq: number): Promise<void> {
    if (firstSeq <= this.#state.firstSeq) return;
    this.#state = { ...this.#state, firstSeq };
    await this.flush();
  }

  /** Writes the current state if it changed; writes queue, so the file ends up the newest. */
  flush(): Promise<void> {
    const next = this.#writing.then(() => this.#writeNow());
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #writeNow(): Promise<void> {
    const state = this.#state;
    const checkpoint: Checkpoint = {
      ...state,
      signature: this.#signer?.sign(signedText(state)) ?? null,
    };
    const text = `${JSON.stringify(checkpoint)}\n`;
    if (text === this.#written) return;
    const temp = `${this.#file}.tmp`;
    const handle = await open(temp, "w", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.#file);
    this.#written = text;
  }
}

/** Renames a checkpoint that disagrees with the log, so verify keeps reporting the cut. */
export async function setCheckpointAside(file: string, seq: number): Promise<string> {
  const aside = `${file}.${seq}-${Date.now()}${SET_ASIDE_SUFFIX}`;
  await rename(file, aside);
  return aside;
}

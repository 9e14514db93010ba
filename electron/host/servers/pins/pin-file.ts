// The pin store on disk: one JSON file (the app's `pins.json` in its data directory, or
// `FILE.pins.json` beside a `serve --config FILE`), written atomically like the config, and
// validated on load. A file that does not validate is kept aside and reported, never lost.

import { constants } from "node:fs";
import { copyFile, stat } from "node:fs/promises";
import { z } from "zod";
import { loadFile, writeFileAtomic } from "../../util/atomic-file.js";
import { MiB } from "../../util/units.js";

/** A pin file larger than this is not read (kept aside and reported, like a corrupt one). */
export const PIN_FILE_MAX_BYTES = 64 * MiB;

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const definition = z.record(z.string(), z.unknown()).nullable();

export const pinnedToolSchema = z.strictObject({
  hash,
  /** The canonical definition, or null when it was too large to keep (PIN_LIMITS). */
  definition,
  pinnedAt: z.iso.datetime(),
});

export const heldToolSchema = z.strictObject({
  /** The definition the server lists now; null: the server no longer lists a pinned tool. */
  hash: hash.nullable(),
  definition,
  /** When this very definition was first seen. */
  since: z.iso.datetime(),
  rejected: z.boolean(),
});

export const serverPinsSchema = z.strictObject({
  pinned: z.record(z.string(), pinnedToolSchema),
  held: z.record(z.string(), heldToolSchema),
});

export const pinFileSchema = z.strictObject({
  version: z.literal(1),
  servers: z.record(z.string(), serverPinsSchema),
  /**
   * Set when an unusable pin file was kept aside: a server with no pins here then has its
   * tools held for review, not pinned on sight (only a missing file means a first start).
   */
  holdUnpinned: z.literal(true).optional(),
  /**
   * Per server, a fingerprint of the entry that starts it (launch-fingerprint.ts): pins left
   * under a name the config no longer has find the server renamed while nothing ran.
   */
  launches: z.record(z.string(), hash).optional(),
});

export type PinnedTool = z.infer<typeof pinnedToolSchema>;
export type HeldTool = z.infer<typeof heldToolSchema>;
export type ServerPins = z.infer<typeof serverPinsSchema>;
export type PinFile = z.infer<typeof pinFileSchema>;

export const EMPTY_PIN_FILE: PinFile = { version: 1, servers: {} };

/** Where `serve --config FILE` keeps the pins of that file's servers. */
export function pinFileBeside(configFile: string): string {
  return `${configFile}.pins.json`;
}

export type PinFileLoad =
  | { ok: true; pins: PinFile }
  /** Unusable: `keptAs` holds a copy of it, so the next save loses nothing. */
  | { ok: false; problem: string; keptAs: string };

/** Reads the pin file; a missing one is an empty store. */
export async function loadPinFile(file: string): Promise<PinFileLoad> {
  const size = await stat(file).then(
    (s) => s.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return 0;
      throw error;
    },
  );
  if (size > PIN_FILE_MAX_BYTES) {
    // Not read (too large), but copied aside like a corrupt file: the next save replaces it.
    const keptAs = `${file}.invalid-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await copyFile(file, keptAs, constants.COPYFILE_EXCL);
    return {
      ok: false,
      problem: `the pin file ${file} is larger than ${PIN_FILE_MAX_BYTES} bytes; it was kept as ${keptAs}`,
      keptAs,
    };
  }
  const loaded = await loadFile(file, (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, problem: `not valid JSON: ${(error as Error).message}` };
    }
    const checked = pinFileSchema.safeParse(value);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return {
        ok: false,
        problem: `not a pin file: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
      };
    }
    return { ok: true, value: checked.data };
  });
  if (loaded.state === "missing") return { ok: true, pins: structuredClone(EMPTY_PIN_FILE) };
  if (loaded.state === "ok") return { ok: true, pins: loaded.value };
  return {
    ok: false,
    problem: `the pin file ${file} cannot be used (${loaded.problem}); it was kept as ${loaded.keptAs}`,
    keptAs: loaded.keptAs,
  };
}

export async function savePinFile(file: string, pins: PinFile): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(pins, null, 1)}\n`);
}

/** The file's identity and size as stat tells them (a rename makes a new inode); null: none. */
export async function fileSignature(file: string): Promise<string | null> {
  return stat(file).then(
    (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    },
  );
}

/**
 * About what a server's entry takes in the saved file (as savePinFile writes it: indented one
 * space a level, the entry two levels deep), counted generously.
 */
export function storedBytes(server: string, pins: ServerPins): number {
  const text = JSON.stringify(pins, null, 1);
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines += 1;
  return Buffer.byteLength(text) + 2 * lines + Buffer.byteLength(JSON.stringify(server)) + 8;
}

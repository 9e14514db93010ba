// Whether the pin file stays within PIN_STORED_MAX_BYTES (what the next start can read
// back) with one server's pins replaced. Each other server's size is kept while its pins stay
// the same object, so a listing costs the size of its own server's pins only.

import { storedBytes, type PinFile, type ServerPins } from "./pin-file.js";
import { MiB } from "../../util/units.js";

/**
 * The pins of all servers together are kept below this (as saved), well under PIN_FILE_MAX_BYTES,
 * so many hostile servers cannot grow the file past what it can read back: a listing whose
 * new entries would not fit is held out of the catalog without being stored.
 */
export const PIN_STORED_MAX_BYTES = 48 * MiB;

export class PinSizes {
  private readonly sizes = new Map<string, { pins: ServerPins; bytes: number }>();

  /** Whether `file`, with `pins` as this server's, stays within PIN_STORED_MAX_BYTES. */
  fits(file: PinFile, server: string, pins: ServerPins): boolean {
    let total = storedBytes(server, pins);
    for (const [name, other] of Object.entries(file.servers)) {
      if (name === server) continue;
      total += this.sizeOf(name, other);
      if (total > PIN_STORED_MAX_BYTES) return false;
    }
    return total <= PIN_STORED_MAX_BYTES;
  }

  private sizeOf(server: string, pins: ServerPins): number {
    const cached = this.sizes.get(server);
    if (cached?.pins === pins) return cached.bytes;
    const bytes = storedBytes(server, pins);
    this.sizes.set(server, { pins, bytes });
    return bytes;
  }
}

// Whether the pin file stays within PIN_LIMITS.storedMaxBytes (what the next start can read
// back) with one server's pins replaced. Each other server's size is kept while its pins stay
// the same object, so a listing costs the size of its own server's pins only.

import { PIN_LIMITS } from "../../../../shared/limits.js";
import { storedBytes, type PinFile, type ServerPins } from "./pin-file.js";

export class PinSizes {
  private readonly sizes = new Map<string, { pins: ServerPins; bytes: number }>();

  /** Whether `file`, with `pins` as this server's, stays within PIN_LIMITS.storedMaxBytes. */
  fits(file: PinFile, server: string, pins: ServerPins): boolean {
    let total = storedBytes(server, pins);
    for (const [name, other] of Object.entries(file.servers)) {
      if (name === server) continue;
      total += this.sizeOf(name, other);
      if (total > PIN_LIMITS.storedMaxBytes) return false;
    }
    return total <= PIN_LIMITS.storedMaxBytes;
  }

  private sizeOf(server: string, pins: ServerPins): number {
    const cached = this.sizes.get(server);
    if (cached?.pins === pins) return cached.bytes;
    const bytes = storedBytes(server, pins);
    this.sizes.set(server, { pins, bytes });
    return bytes;
  }
}

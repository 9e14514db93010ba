// What the pin store tells the one that runs it (the app's audit, or serve's stderr), and asks it.

import type { Decision, HeldChange } from "./pin-state.js";
import type { ServerPins } from "./pin-file.js";

/** Who reviewed a held change, for the audit. */
export type Reviewer = "app" | "browser" | "cli";

export interface ToolPinsEvents {
  /** Definitions this listing held that were not held before. */
  held?: (server: string, changes: readonly HeldChange[]) => void;
  /**
   * The first listing of a server in this process found definitions held before (held earlier,
   * not rejected): `serve` says them again at each start.
   */
  stillHeld?: (server: string, changes: readonly HeldChange[]) => void;
  /** A server's tools pinned for the first time (on adding it, or on the first start). */
  firstPinned?: (server: string, count: number) => void;
  reviewed?: (
    server: string,
    changes: readonly HeldChange[],
    decision: Decision,
    who: Reviewer,
  ) => void;
  /**
   * A review, a reload or a removed server changed the pins: rebuild the catalog and tell the
   * UI. (Listings observed during a build do not call this; `held` tells those.)
   */
  changed?: () => void;
  /**
   * A listing's held definitions did not fit PIN_STORED_MAX_BYTES: they stay out of the
   * catalog without being stored (so not reviewable until room is made).
   */
  full?: (server: string) => void;
  /** A save failed: the pins in memory still hold, the file is behind. */
  saveFailed?: (error: unknown) => void;
  /**
   * The servers configured now. With it, "hold everything" (set after an unusable pin file)
   * clears once every configured server has pins and none has a change left to review;
   * without it, it never clears (fails closed).
   */
  configured?: () => Iterable<string>;
  /** Notes of CLI reviews that could not be read (recorded as a count, not as reviews). */
  notesUnreadable?: (count: number) => void;
  /** A server's pins and held changes moved to its new name (rename, or taken over). */
  moved?: (from: string, to: string, pins: ServerPins) => void;
}

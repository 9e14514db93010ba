// The pin store at work: one file of pins (see pin-file.ts), the servers' listings observed
// against it (pin-state.ts), held definitions kept out of the catalog, and reviews. Held
// changes and reviews reach the audit (the app) or stderr (serve) through the callbacks.
//
// Observation is synchronous and in memory (the catalog is built from it); the file follows
// through a queue of atomic writes, each writing the state as it then is.

import { unwatchFile, watchFile } from "node:fs";
import type { HeldToolView } from "../../../shared/api/api-views.js";
import { PIN_LIMITS } from "../../../shared/limits.js";
import { SerialQueue } from "../util/serial-queue.js";
import { loadPinFile, savePinFile, type PinFile, type ServerPins } from "./pin-file.js";
import {
  admitted,
  firstPins,
  heldChange,
  heldKind,
  observeListing,
  review,
  type Decision,
  type HeldChange,
  type ListedForm,
} from "./pin-state.js";
import { shortHash } from "./tool-hash.js";

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
   * A listing's held definitions did not fit PIN_LIMITS.storedMaxBytes: they stay out of the
   * catalog without being stored (so not reviewable until room is made).
   */
  full?: (server: string) => void;
  /** A save failed: the pins in memory still hold, the file is behind. */
  saveFailed?: (error: unknown) => void;
}

export class ToolPins {
  private readonly queue = new SerialQueue();
  private dirty = false;
  private watching = false;
  /** Servers whose listing this process has observed (stillHeld is said once each). */
  private readonly observed = new Set<string>();
  /** Servers already reported as not fitting the file (said once each, not every rebuild). */
  private readonly full = new Set<string>();

  private constructor(
    readonly file: string,
    private state: PinFile,
    private events: ToolPinsEvents,
    private readonly now: () => Date,
  ) {}

  /**
   * Opens the file. An unusable one (corrupt, not a pin file, too large) was kept aside and
   * `problem` says so; the pins then start empty but fail closed: every server's tools are
   * held for review (`holdUnpinned`, saved at once so a restart keeps holding them), never
   * pinned on sight. Only a missing file is a first start that pins each server's listing.
   */
  static async open(
    file: string,
    events: ToolPinsEvents = {},
    now: () => Date = () => new Date(),
  ): Promise<{ pins: ToolPins; problem: string | null }> {
    const loaded = await loadPinFile(file);
    if (loaded.ok) return { pins: new ToolPins(file, loaded.pins, events, now), problem: null };
    const state: PinFile = { version: 1, servers: {}, holdUnpinned: true };
    const pins = new ToolPins(file, state, events, now);
    pins.dirty = true;
    await pins.flush();
    return {
      pins,
      problem: `${loaded.problem}; every server's tools are held until you review them`,
    };
  }

  /** Sets the callbacks (the host wires them once its services exist). */
  listen(events: ToolPinsEvents): void {
    this.events = events;
  }

  /** The pins as they now are (the CLI prints them). */
  get current(): PinFile {
    return this.state;
  }

  /**
   * Takes a server's listing and answers the names to hold out of the catalog. A server with no
   * pins yet has every tool pinned now (first acceptance), unless the pin file was unusable
   * (then every tool is held as added) or the pins would not fit PIN_LIMITS.storedMaxBytes
   * (then every tool not already pinned is held, unstored); `forms` null (never listed) holds
   * nothing and pins nothing.
   */
  observe(server: string, forms: readonly ListedForm[] | null): Set<string> {
    if (forms === null) return new Set();
    const at = this.now().toISOString();
    const known = this.state.servers[server];
    if (known === undefined && this.state.holdUnpinned !== true) {
      const first = firstPins(forms, at);
      if (this.fits(server, first)) {
        this.observed.add(server);
        this.setServer(server, first, false);
        this.events.firstPinned?.(server, forms.length);
        return new Set();
      }
    }
    // No pins (after an unusable file, or too many to store): every tool is held as added.
    const pins = known ?? { pinned: {}, held: {} };
    const seen = observeListing(pins, forms, at);
    if (seen.changed && !this.fits(server, seen.pins)) {
      // The file would grow past what it can read back: nothing new is stored (or admitted).
      if (!this.full.has(server)) this.events.full?.(server);
      this.full.add(server);
      return new Set(forms.filter((f) => !admitted(pins, f.name, f.hash)).map((f) => f.name));
    }
    if (seen.changed || known === undefined) this.setServer(server, seen.pins, false);
    if (!this.observed.has(server)) {
      this.observed.add(server);
      const fresh = new Set(seen.newlyHeld.map((c) => c.tool));
      const still = Object.entries(seen.pins.held)
        .filter(([tool, held]) => !fresh.has(tool) && !held.rejected)
        .map(([tool, held]) => heldChange(seen.pins, tool, held));
      if (still.length > 0) this.events.stillHeld?.(server, still);
    }
    if (seen.newlyHeld.length > 0) this.events.held?.(server, seen.newlyHeld);
    return new Set(forms.filter((f) => !admitted(seen.pins, f.name, f.hash)).map((f) => f.name));
  }

  /** Held tools of a server not yet rejected: its "changes to review". */
  heldCount(server: string): number {
    const held = this.state.servers[server]?.held ?? {};
    return Object.values(held).filter((h) => !h.rejected).length;
  }

  /** Every held definition (of one server, or all), servers in name order, tools in theirs. */
  heldViews(server?: string): HeldToolView[] {
    const names = server === undefined ? Object.keys(this.state.servers).sort() : [server];
    return names.flatMap((name) => {
      const pins = this.state.servers[name];
      if (pins === undefined) return [];
      return Object.keys(pins.held)
        .sort()
        .map((tool) => heldView(name, pins, tool));
    });
  }

  /** Accepts or rejects held definitions (`tool` null: all of the server's); what it applied to. */
  async review(
    server: string,
    tool: string | null,
    decision: Decision,
    who: Reviewer,
  ): Promise<HeldChange[]> {
    const pins = this.state.servers[server];
    if (pins === undefined) return [];
    const done = review(pins, tool, decision, this.now().toISOString());
    if (done.reviewed.length === 0) return [];
    this.setServer(server, done.pins);
    this.events.reviewed?.(server, done.reviewed, decision, who);
    await this.flush();
    return done.reviewed;
  }

  /** Forgets the pins of servers no longer configured (a server added again starts afresh). */
  keepOnly(servers: ReadonlySet<string>): void {
    const gone = Object.keys(this.state.servers).filter((name) => !servers.has(name));
    if (gone.length === 0) return;
    const next = { ...this.state.servers };
    for (const name of gone) delete next[name];
    this.state = { ...this.state, servers: next };
    this.changed();
  }

  /**
   * Takes the file as it now is on disk (`codemode servers accept` wrote it while this host
   * ran); an unusable file leaves the pins in memory as they are. A held definition the file
   * no longer holds (re-pinned, or its removal accepted) or now marks rejected is reported as
   * reviewed by the CLI, so the audit has it. True when anything changed.
   */
  async reload(): Promise<boolean> {
    await this.flush();
    const loaded = await loadPinFile(this.file);
    if (!loaded.ok) return false;
    if (JSON.stringify(loaded.pins) === JSON.stringify(this.state)) return false;
    const before = this.state;
    this.state = loaded.pins;
    for (const [server, pins] of Object.entries(before.servers)) {
      const after = loaded.pins.servers[server];
      if (after === undefined) continue;
      for (const decision of ["accept", "reject"] as const) {
        const done = reviewedOnDisk(pins, after, decision);
        if (done.length > 0) this.events.reviewed?.(server, done, decision, "cli");
      }
    }
    this.events.changed?.();
    return true;
  }

  /** Reloads whenever the file changes on disk (polled: PIN_LIMITS.watchIntervalMs). */
  watch(intervalMs: number = PIN_LIMITS.watchIntervalMs): void {
    if (this.watching) return;
    this.watching = true;
    watchFile(this.file, { interval: intervalMs, persistent: false }, () => {
      void this.reload().catch((error: unknown) => this.events.saveFailed?.(error));
    });
  }

  /** Stops watching, and resolves once every change so far is on disk. */
  async close(): Promise<void> {
    if (this.watching) unwatchFile(this.file);
    this.watching = false;
    await this.flush();
  }

  /** Resolves once every change so far is on disk. */
  flush(): Promise<void> {
    return this.queue.run(() => this.save());
  }

  /** Whether the file, with `pins` as this server's, stays within PIN_LIMITS.storedMaxBytes. */
  private fits(server: string, pins: ServerPins): boolean {
    let total = storedBytes(server, pins);
    for (const name of Object.keys(this.state.servers)) {
      if (name === server) continue;
      total += this.sizeOf(name);
      if (total > PIN_LIMITS.storedMaxBytes) return false;
    }
    return total <= PIN_LIMITS.storedMaxBytes;
  }

  private readonly sizes = new Map<string, { pins: ServerPins; bytes: number }>();

  private sizeOf(server: string): number {
    const pins = this.state.servers[server];
    if (pins === undefined) return 0;
    const cached = this.sizes.get(server);
    if (cached?.pins === pins) return cached.bytes;
    const bytes = storedBytes(server, pins);
    this.sizes.set(server, { pins, bytes });
    return bytes;
  }

  /** `notify` false: a listing being observed while the catalog is built (no rebuild again). */
  private setServer(server: string, pins: ServerPins, notify = true): void {
    this.state = { ...this.state, servers: { ...this.state.servers, [server]: pins } };
    this.changed(notify);
  }

  private changed(notify = true): void {
    this.dirty = true;
    void this.flush().catch((error: unknown) => this.events.saveFailed?.(error));
    if (notify) this.events.changed?.();
  }

  private async save(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      await savePinFile(this.file, this.state);
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }
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

/** Held definitions of `before` that `after` (the file) shows reviewed with `decision`. */
function reviewedOnDisk(before: ServerPins, after: ServerPins, decision: Decision): HeldChange[] {
  const done: HeldChange[] = [];
  for (const [tool, held] of Object.entries(before.held)) {
    const now = after.held[tool];
    const accepted =
      now === undefined &&
      (held.hash === null
        ? after.pinned[tool] === undefined
        : after.pinned[tool]?.hash === held.hash);
    const rejected = now !== undefined && now.hash === held.hash && now.rejected && !held.rejected;
    if (decision === "accept" ? accepted : rejected) {
      done.push(heldChange(before, tool, held));
    }
  }
  return done;
}

function heldView(server: string, pins: ServerPins, tool: string): HeldToolView {
  const held = pins.held[tool];
  const pinned = pins.pinned[tool];
  if (held === undefined) throw new Error(`no held tool ${tool}`);
  return {
    server,
    tool,
    kind: heldKind(pins, tool, held),
    pinned: pinned ? (pinned.definition ?? notKept(pinned.hash)) : null,
    current: held.hash === null ? null : (held.definition ?? notKept(held.hash)),
    rejected: held.rejected,
    since: held.since,
  };
}

function notKept(hash: string): Record<string, unknown> {
  return {
    notKept: `definition over ${PIN_LIMITS.definitionMaxChars} characters (or past the server's budget): only its hash is kept`,
    hash: `sha256:${hash}`,
  };
}

export { shortHash };

/** The app's pin file in its data directory. */
export const PINS_FILE = "pins.json";

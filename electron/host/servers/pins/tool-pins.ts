// The pin store at work: one file of pins (see pin-file.ts), the servers' listings observed
// against it (pin-state.ts), held definitions kept out of the catalog, and reviews. Held
// changes and reviews reach the audit (the app) or stderr (serve) through the callbacks.
//
// Observation is synchronous and in memory (the catalog is built from it); the file follows
// through a queue of atomic writes, each writing the state as it then is. Each write holds the
// pin file's lock (pin-lock.ts) and first takes in what `codemode servers accept|reject` wrote
// since this process last read or wrote the file, so neither side's change is lost.

import { unwatchFile, watchFile } from "node:fs";
import type { HeldToolView } from "../../../../shared/api/api-views.js";
import { toolNameProblem } from "../../core/catalog/tool-name-check.js";
import { SerialQueue } from "../../util/serial-queue.js";
import {
  fileSignature,
  loadPinFile,
  savePinFile,
  type PinFile,
  type ServerPins,
} from "./pin-file.js";
import { withPinLock } from "./pin-lock.js";
import { movePins, renamesSince, withLaunches } from "./pin-renames.js";
import { PinSizes } from "./pin-size.js";
import {
  admitted,
  firstPins,
  heldChange,
  observeListing,
  review,
  reviewedOnDisk,
  type Decision,
  type HeldChange,
  type ListedForm,
} from "./pin-state.js";
import { heldView } from "./held-view.js";
import { reviewSeen, type SeenDefinition, type StaleDefinition } from "./seen-definitions.js";
import { takeReviewNotes } from "./review-notes.js";
import { shortHash } from "./tool-hash.js";
import type { Reviewer, ToolPinsEvents } from "./tool-pins-events.js";

export type { Reviewer, ToolPinsEvents } from "./tool-pins-events.js";

/**
 * How often a running host or `serve` looks at its pin file for changes another process
 * (`codemode servers accept`) made.
 */
export const PIN_WATCH_INTERVAL_MS = 500;

export class ToolPins {
  private readonly queue = new SerialQueue();
  private dirty = false;
  private watching = false;
  /** Servers whose listing this process has observed (stillHeld is said once each). */
  private readonly observed = new Set<string>();
  /** Servers already reported as not fitting the file (said once each, not every rebuild). */
  private readonly full = new Set<string>();
  /** The file as this process last read or wrote it (stat), to see another's write. */
  private diskSig: string | null = null;
  private readonly sizes = new PinSizes();

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
    const opened = await withPinLock(file, async () => {
      const loaded = await loadPinFile(file);
      return { loaded, sig: await fileSignature(file) };
    });
    const { loaded } = opened;
    if (loaded.ok) {
      const pins = new ToolPins(file, loaded.pins, events, now);
      pins.diskSig = opened.sig;
      return { pins, problem: null };
    }
    const state: PinFile = { version: 1, servers: {}, holdUnpinned: true };
    const pins = new ToolPins(file, state, events, now);
    // The unusable file (kept aside) is replaced at once, so a restart keeps holding.
    pins.diskSig = opened.sig;
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
   * (then every tool is held as added) or the pins would not fit PIN_STORED_MAX_BYTES
   * (then every tool not already pinned is held, unstored); `forms` null (never listed) holds
   * nothing and pins nothing.
   */
  observe(server: string, listed: readonly ListedForm[] | null): Set<string> {
    if (listed === null) return new Set();
    // A name the catalog refuses (toolNameProblem) is neither pinned nor held: it can never be
    // offered, and a megabyte name never grows the file.
    const forms = listed.filter((form) => toolNameProblem(form.name) === null);
    const at = this.now().toISOString();
    const known = this.state.servers[server];
    if (known === undefined && this.state.holdUnpinned !== true) {
      const first = firstPins(forms, at);
      if (this.sizes.fits(this.state, server, first)) {
        this.observed.add(server);
        this.setServer(server, first, false);
        this.events.firstPinned?.(server, forms.length);
        return new Set();
      }
    }
    // No pins (after an unusable file, or too many to store): every tool is held as added.
    const pins = known ?? { pinned: {}, held: {} };
    const seen = observeListing(pins, forms, at);
    if (seen.changed && !this.sizes.fits(this.state, server, seen.pins)) {
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
    this.settleHoldUnpinned();
    return new Set(forms.filter((f) => !admitted(seen.pins, f.name, f.hash)).map((f) => f.name));
  }

  /**
   * The definitions the catalog may take of a server: name -> hash of each pinned tool that is
   * not held. Anything else it lists stays out, held or not.
   */
  pinnedFor(server: string): Map<string, string> {
    const pins = this.state.servers[server];
    const out = new Map<string, string>();
    if (pins === undefined) return out;
    for (const [tool, pin] of Object.entries(pins.pinned))
      if (pins.held[tool] === undefined) out.set(tool, pin.hash);
    return out;
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

  /**
   * Accepts or rejects the held definitions the reviewer was shown, each named with its hash.
   * If any of them is no longer held as shown, nothing is reviewed and `stale` says which;
   * `reviewed` empty and no `stale`: none of them is held at all.
   */
  async review(
    server: string,
    seen: readonly SeenDefinition[],
    decision: Decision,
    who: Reviewer,
  ): Promise<{ reviewed: HeldChange[]; stale: StaleDefinition[] }> {
    const at = this.now().toISOString();
    const { pins, reviewed, stale } = reviewSeen(this.state.servers[server], seen, decision, at);
    if (pins === undefined || reviewed.length === 0) return { reviewed, stale };
    this.setServer(server, pins);
    this.settleHoldUnpinned();
    this.events.reviewed?.(server, reviewed, decision, who);
    await this.flush();
    return { reviewed, stale };
  }

  /**
   * Moves each renamed server's pins, held changes and rejections to its new name (old name ->
   * new name): its next listing is compared with them, so a change held under the old name
   * stays held, and anything else it lists differently is held too.
   */
  rename(renames: ReadonlyMap<string, string>, notify = true): void {
    const { file, moves } = movePins(this.state, renames);
    if (moves.length === 0) return;
    this.state = file;
    for (const move of moves) this.events.moved?.(move.from, move.to, move.pins);
    this.changed(notify);
  }

  /**
   * At start, with the servers configured now (name -> launch fingerprint): pins of servers the
   * config no longer names go to the servers renamed from them while nothing ran (renamesSince),
   * before any listing could pin those afresh; then each server's fingerprint is kept.
   */
  followRenames(launches: ReadonlyMap<string, string>): void {
    this.rename(renamesSince(this.state, launches), false);
    this.noteLaunches(launches);
  }

  /** Keeps each configured server's launch fingerprint (name -> fingerprint). */
  noteLaunches(launches: ReadonlyMap<string, string>): void {
    const next = withLaunches(this.state, launches);
    if (next === this.state) return;
    this.state = next;
    this.changed(false);
  }

  /** Forgets the pins of servers no longer configured (a server added again starts afresh). */
  keepOnly(servers: ReadonlySet<string>): void {
    const gone = Object.keys(this.state.servers).filter((name) => !servers.has(name));
    const goneLaunches = Object.keys(this.state.launches ?? {}).filter((n) => !servers.has(n));
    if (gone.length === 0 && goneLaunches.length === 0) return;
    const next = { ...this.state.servers };
    const launches = { ...this.state.launches };
    for (const name of gone) delete next[name];
    for (const name of goneLaunches) delete launches[name];
    this.state = { ...this.state, servers: next, launches };
    this.changed();
  }

  /**
   * Takes in what `codemode servers accept|reject` wrote while this process ran (see sync), and
   * records the CLI's review notes. An unusable file leaves the pins in memory as they are (and
   * is replaced by them). True when the pins changed.
   */
  async reload(): Promise<boolean> {
    const merged = await this.queue.run(() => this.sync());
    if (merged) this.events.changed?.();
    return merged;
  }

  /** Reloads whenever the file changes on disk (polled: PIN_WATCH_INTERVAL_MS). */
  watch(intervalMs: number = PIN_WATCH_INTERVAL_MS): void {
    if (this.watching) return;
    this.watching = true;
    watchFile(this.file, { interval: intervalMs, persistent: false }, () => {
      void this.reload().catch((error: unknown) => this.events.saveFailed?.(error));
    });
    // Reviews the CLI noted while nothing ran reach the audit now.
    void this.reload().catch((error: unknown) => this.events.saveFailed?.(error));
  }

  /** Stops watching, and resolves once every change so far is on disk. */
  async close(): Promise<void> {
    if (this.watching) unwatchFile(this.file);
    this.watching = false;
    await this.flush();
  }

  /** Resolves once every change so far is on disk. */
  flush(): Promise<void> {
    return this.queue.run(async () => {
      if (!this.dirty) return;
      if (await this.sync()) this.events.changed?.();
    });
  }

  /**
   * Under the pin file's lock: if the file changed since this process last read or wrote it,
   * the reviews it shows (another process's) are applied to the pins in memory; the CLI's
   * review notes go to the `reviewed` callback; then the pins are written if anything changed.
   * True when the file brought reviews in.
   */
  private async sync(): Promise<boolean> {
    return withPinLock(this.file, async () => {
      let merged = false;
      if ((await fileSignature(this.file)) !== this.diskSig) {
        const loaded = await loadPinFile(this.file);
        if (loaded.ok) merged = this.merge(loaded.pins);
        // Whatever differs from ours (say the file was deleted, or is unusable) is rewritten.
        if (!loaded.ok || JSON.stringify(loaded.pins) !== JSON.stringify(this.state))
          this.dirty = true;
      }
      const taken = await takeReviewNotes(this.file);
      // One call per run of notes of the same server and decision (one CLI command, mostly).
      const groups: { server: string; decision: Decision; changes: HeldChange[] }[] = [];
      for (const { server, decision, tool, kind, pinnedHash, heldHash } of taken.notes) {
        let group = groups.at(-1);
        if (group?.server !== server || group.decision !== decision) {
          group = { server, decision, changes: [] };
          groups.push(group);
        }
        group.changes.push({ tool, kind, pinnedHash, heldHash });
      }
      for (const g of groups) this.events.reviewed?.(g.server, g.changes, g.decision, "cli");
      if (taken.unreadable > 0) this.events.notesUnreadable?.(taken.unreadable);
      await this.save();
      this.diskSig = await fileSignature(this.file);
      return merged;
    });
  }

  /** Applies the reviews `disk` shows over the held definitions in memory. */
  private merge(disk: PinFile): boolean {
    let any = false;
    const at = this.now().toISOString();
    for (const [server, pins] of Object.entries(this.state.servers)) {
      const after = disk.servers[server];
      if (after === undefined) continue;
      let next = pins;
      for (const decision of ["accept", "reject"] as const)
        for (const change of reviewedOnDisk(pins, after, decision))
          next = review(next, change.tool, decision, at).pins;
      if (next === pins) continue;
      any = true;
      this.state = { ...this.state, servers: { ...this.state.servers, [server]: next } };
    }
    if (any) {
      this.dirty = true;
      this.settleHoldUnpinned();
    }
    return any;
  }

  /**
   * "Hold everything" (after an unusable pin file) ends once the user has reviewed it all:
   * every configured server has pins and no held definition is left unreviewed (accepted or
   * rejected). Until then it stays in the file, so a restart keeps holding.
   */
  private settleHoldUnpinned(): void {
    if (this.state.holdUnpinned !== true || this.events.configured === undefined) return;
    for (const server of this.events.configured())
      if (this.state.servers[server] === undefined) return;
    for (const server of Object.keys(this.state.servers)) if (this.heldCount(server) > 0) return;
    const { holdUnpinned: _cleared, ...rest } = this.state;
    this.state = rest;
    this.dirty = true;
    void this.flush().catch((error: unknown) => this.events.saveFailed?.(error));
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

  /** Writes the pins if they changed; call holding the lock (sync). */
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

export { shortHash };

/** The app's pin file in its data directory. */
export const PINS_FILE = "pins.json";

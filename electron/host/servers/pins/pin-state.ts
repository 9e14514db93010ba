// What pinning decides, as pure functions over one server's pins: the first listing pins
// every tool; a later listing holds each tool whose definition is new or differs from its
// pin, and each pinned tool the server no longer lists; a review re-pins or rejects.

import type { HeldChangeKind } from "../../../../shared/api/api-views.js";
import { PIN_LIMITS } from "../../../../shared/limits.js";
import type { HeldTool, PinnedTool, ServerPins } from "./pin-file.js";
import type { PinnedForm } from "./tool-hash.js";
import { MiB } from "../../util/units.js";

/** Past this many characters of kept definitions per server, further ones keep their hash only. */
export const PIN_DEFINITIONS_MAX_CHARS_PER_SERVER = 4 * MiB;

/** A tool as the server listed it, in the form it is pinned by. */
export interface ListedForm extends PinnedForm {
  name: string;
}

/** One held definition, as the audit log and serve's stderr tell it. */
export interface HeldChange {
  tool: string;
  kind: HeldChangeKind;
  /** The pinned hash (null when added) and the held one (null when removed). */
  pinnedHash: string | null;
  heldHash: string | null;
}

export function heldKind(pins: ServerPins, tool: string, held: HeldTool): HeldChangeKind {
  if (held.hash === null) return "removed";
  return pins.pinned[tool] ? "changed" : "added";
}

export function heldChange(pins: ServerPins, tool: string, held: HeldTool): HeldChange {
  return {
    tool,
    kind: heldKind(pins, tool, held),
    pinnedHash: pins.pinned[tool]?.hash ?? null,
    heldHash: held.hash,
  };
}

/** Keeps definitions while the server's budget lasts; past it (or one too large) only hashes. */
class DefinitionBudget {
  private left: number;
  constructor(pins: ServerPins | null) {
    let used = 0;
    for (const entry of [...Object.values(pins?.pinned ?? {}), ...Object.values(pins?.held ?? {})])
      if (entry.definition !== null) used += JSON.stringify(entry.definition).length;
    this.left = PIN_DEFINITIONS_MAX_CHARS_PER_SERVER - used;
  }
  keep(form: PinnedForm): Record<string, unknown> | null {
    if (form.json.length > PIN_LIMITS.definitionMaxChars || form.json.length > this.left)
      return null;
    this.left -= form.json.length;
    return form.definition;
  }
}

/** First acceptance: every listed tool pinned as it is. */
export function firstPins(listed: readonly ListedForm[], now: string): ServerPins {
  const budget = new DefinitionBudget(null);
  const pinned: Record<string, PinnedTool> = {};
  for (const tool of listed)
    pinned[tool.name] = { hash: tool.hash, definition: budget.keep(tool), pinnedAt: now };
  return { pinned, held: {} };
}

export interface Observation {
  pins: ServerPins;
  /** Definitions held by this listing that were not held before (the audit records each). */
  newlyHeld: HeldChange[];
  /** Whether `pins` differs from what it was (the store then saves it). */
  changed: boolean;
}

/**
 * A later listing against the server's pins: held entries added for new definitions, kept for
 * ones already held (with their `since` and `rejected`), dropped where the server went back
 * to the pinned definition.
 */
export function observeListing(
  pins: ServerPins,
  listed: readonly ListedForm[],
  now: string,
): Observation {
  const budget = new DefinitionBudget(pins);
  const held: Record<string, HeldTool> = {};
  const newlyHeld: HeldChange[] = [];
  const hold = (tool: string, form: ListedForm | null): void => {
    const hash = form?.hash ?? null;
    const before = pins.held[tool];
    if (before !== undefined && before.hash === hash) {
      held[tool] = before;
      return;
    }
    held[tool] = {
      hash,
      definition: form ? budget.keep(form) : null,
      since: now,
      rejected: false,
    };
    newlyHeld.push(heldChange(pins, tool, held[tool]));
  };
  const listedNames = new Set<string>();
  for (const tool of listed) {
    listedNames.add(tool.name);
    if (pins.pinned[tool.name]?.hash !== tool.hash) hold(tool.name, tool);
  }
  for (const tool of Object.keys(pins.pinned)) if (!listedNames.has(tool)) hold(tool, null);
  const next = { pinned: pins.pinned, held };
  return { pins: next, newlyHeld, changed: !sameHeld(pins.held, held) };
}

function sameHeld(a: Record<string, HeldTool>, b: Record<string, HeldTool>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}

/** Tools the catalog may take: listed exactly as pinned. */
export function admitted(pins: ServerPins, name: string, hash: string): boolean {
  return pins.pinned[name]?.hash === hash && pins.held[name] === undefined;
}

export type Decision = "accept" | "reject";

export interface Review {
  pins: ServerPins;
  reviewed: HeldChange[];
}

/**
 * Accepting re-pins the held definition (a removal drops the pin); rejecting marks it, so it
 * stays out until the server lists a different one. `tool` null: every held tool.
 */
export function review(
  pins: ServerPins,
  tool: string | null,
  decision: Decision,
  now: string,
): Review {
  const pinned = { ...pins.pinned };
  const held = { ...pins.held };
  const reviewed: HeldChange[] = [];
  for (const [name, entry] of Object.entries(pins.held)) {
    if (tool !== null && name !== tool) continue;
    reviewed.push(heldChange(pins, name, entry));
    if (decision === "reject") {
      held[name] = { ...entry, rejected: true };
      continue;
    }
    delete held[name];
    if (entry.hash === null) delete pinned[name];
    else pinned[name] = { hash: entry.hash, definition: entry.definition, pinnedAt: now };
  }
  return { pins: { pinned, held }, reviewed };
}

/** Held definitions of `before` that `after` (the file) shows reviewed with `decision`. */
export function reviewedOnDisk(
  before: ServerPins,
  after: ServerPins,
  decision: Decision,
): HeldChange[] {
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

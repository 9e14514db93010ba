// A review applies to the definitions the person was shown. Between their look and their
// click a server can list another definition of the same tool (list_changed): the held entry
// then carries another hash, and the review is refused, so the new definition is shown to
// them instead of being pinned unseen.
import type { ServerPins } from "./pin-file.js";
import { review, type Decision, type HeldChange } from "./pin-state.js";

/** A held tool as the reviewer was shown it: the hash of its held definition (null: removed). */
export interface SeenDefinition {
  tool: string;
  hash: string | null;
}

/** A definition shown that is not the one held now; `held` undefined: the tool is not held. */
export interface StaleDefinition {
  tool: string;
  seen: string | null;
  held: string | null | undefined;
}

/** Stale tools named in a refusal (the rest are counted), each name cut to so many characters. */
const STALE_NAMED_MAX = 3;
const STALE_NAME_MAX_CHARS = 100;

/** The seen definitions that differ from what `pins` holds now (none: the review may go on). */
export function staleDefinitions(
  pins: ServerPins | undefined,
  seen: readonly SeenDefinition[],
): StaleDefinition[] {
  const stale: StaleDefinition[] = [];
  for (const { tool, hash } of seen) {
    const held = Object.hasOwn(pins?.held ?? {}, tool) ? pins?.held[tool] : undefined;
    if (held === undefined || held.hash !== hash)
      stale.push({ tool, seen: hash, held: held?.hash });
  }
  return stale;
}

/**
 * Reviews the definitions shown if each is still held as shown; else reviews nothing and
 * `stale` says which are not. Neither reviewed nor stale: none of them is held at all.
 */
export function reviewSeen(
  pins: ServerPins | undefined,
  seen: readonly SeenDefinition[],
  decision: Decision,
  at: string,
): { pins: ServerPins | undefined; reviewed: HeldChange[]; stale: StaleDefinition[] } {
  const stale = staleDefinitions(pins, seen);
  const noneHeld = stale.length === seen.length && stale.every((s) => s.held === undefined);
  if (pins === undefined || noneHeld) return { pins, reviewed: [], stale: [] };
  if (stale.length > 0) return { pins, reviewed: [], stale };
  let next = pins;
  const reviewed: HeldChange[] = [];
  for (const { tool } of seen) {
    const done = review(next, tool, decision, at);
    next = done.pins;
    reviewed.push(...done.reviewed);
  }
  return { pins: next, reviewed, stale: [] };
}

/** Every definition held now for `pins`, as if shown (one tool, or all when `tool` is null). */
export function heldNow(
  pins: ServerPins | undefined,
  tool: string | null = null,
): SeenDefinition[] {
  return Object.entries(pins?.held ?? {})
    .filter(([name]) => tool === null || name === tool)
    .map(([name, held]) => ({ tool: name, hash: held.hash }));
}

/** Why a review of `stale` definitions was refused, for the person who made it. */
export function staleMessage(
  server: string,
  stale: readonly StaleDefinition[],
  decision: Decision,
): string {
  const done = decision === "accept" ? "accepted" : "rejected";
  const changed = stale.filter((s) => s.held !== undefined);
  const gone = stale.filter((s) => s.held === undefined);
  const parts: string[] = [];
  if (changed.length > 0) {
    parts.push(
      `the definition of ${toolList(changed)} of server ${JSON.stringify(server)} changed again ` +
        `after it was shown: review the new definition`,
    );
  }
  if (gone.length > 0) {
    parts.push(
      `${toolList(gone)} of server ${JSON.stringify(server)} ${gone.length === 1 ? "is" : "are"} ` +
        "no longer held for review",
    );
  }
  return `Nothing was ${done}: ${parts.join("; ")}.`;
}

function toolList(stale: readonly StaleDefinition[]): string {
  const named = stale
    .slice(0, STALE_NAMED_MAX)
    .map((s) =>
      JSON.stringify(
        s.tool.length > STALE_NAME_MAX_CHARS ? `${s.tool.slice(0, STALE_NAME_MAX_CHARS)}…` : s.tool,
      ),
    );
  const more = stale.length - named.length;
  const list = more > 0 ? `${named.join(", ")} and ${more} more` : named.join(", ");
  return `${stale.length === 1 ? "tool" : "tools"} ${list}`;
}

/**
 * How much of a held definition's hash `codemode servers pins` prints, and the least that
 * `--hash` takes: 128 bits. The server chooses both the definition it shows and the one it
 * swaps in, so it can search for two that share a shorter prefix (a birthday search: about
 * 2^24 tries for the 12 characters the audit's text shows, 2^32 for 16); for 32 it is 2^64.
 */
export const REVIEW_HASH_CHARS = 32;

/** A held definition's hash as a person compares it (`-`: the tool was removed). */
export function reviewHash(hash: string | null): string {
  return hash === null ? "-" : hash.slice(0, REVIEW_HASH_CHARS);
}

// A held definition as the review shows it: both sides, or a note where only a hash was kept.
import type { HeldToolView } from "../../../../shared/api/api-views.js";
import { PIN_LIMITS } from "../../../../shared/limits.js";
import type { ServerPins } from "./pin-file.js";
import { heldKind } from "./pin-state.js";

export function heldView(server: string, pins: ServerPins, tool: string): HeldToolView {
  const held = pins.held[tool];
  const pinned = pins.pinned[tool];
  if (held === undefined) throw new Error(`no held tool ${tool}`);
  return {
    server,
    tool,
    kind: heldKind(pins, tool, held),
    pinned: pinned ? (pinned.definition ?? notKept(pinned.hash)) : null,
    current: held.hash === null ? null : (held.definition ?? notKept(held.hash)),
    hash: held.hash,
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

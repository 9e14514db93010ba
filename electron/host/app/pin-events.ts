// What the app does when the pins move: each held, accepted or rejected definition and each
// first pinning and each renamed server's pins moved land in the audit log; a review rebuilds
// the catalog (via `changed`).
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import type { HeldChange } from "../servers/pins/pin-state.js";
import type { ToolPins, ToolPinsEvents } from "../servers/pins/tool-pins.js";
import type { ConfigStore } from "../servers/config/config-store.js";
import { configLaunches } from "../servers/launch-fingerprint.js";
import { HeldLogLimiter } from "../audit/flood/held-log-limiter.js";

function changeFields(server: string, change: HeldChange) {
  return {
    server,
    tool: change.tool,
    change: change.kind,
    pinnedHash: change.pinnedHash,
    heldHash: change.heldHash,
  };
}

export interface PinEventDeps {
  record: (entry: AuditEntryInput) => void;
  log: ((line: string) => void) | undefined;
  changed: () => void;
  configured: () => Iterable<string>;
  now?: () => number;
}

/**
 * The app's pins, wired to its config: its events as above; servers renamed in servers.json
 * while nothing ran keep their pins (before any listing); and each saved config moves a renamed
 * server's pins and held changes to its new name, then drops those of removed servers (added
 * again, a server is pinned afresh). Call before anything else applies the config.
 */
export function wirePins(
  pins: ToolPins,
  configStore: ConfigStore,
  deps: Omit<PinEventDeps, "configured">,
): void {
  pins.listen(pinEvents({ ...deps, configured: () => configStore.current.servers.keys() }));
  pins.followRenames(configLaunches(configStore.current));
  configStore.onApply((config, _summary, renames) => {
    pins.rename(renames);
    pins.keepOnly(new Set(config.servers.keys()));
    pins.noteLaunches(configLaunches(config));
    return Promise.resolve();
  });
}

export function pinEvents(deps: PinEventDeps): ToolPinsEvents {
  // A server chooses what it lists: its held definitions are logged one by one up to a bound.
  const heldLog = new HeldLogLimiter(deps.now);
  return {
    firstPinned: (server, count) => deps.record({ kind: "tools_pinned", server, count }),
    held: (server, changes) => {
      for (const { change, notLogged } of heldLog.admit(server, changes)) {
        deps.record({
          kind: "tool_held",
          ...changeFields(server, change),
          ...(notLogged === undefined ? {} : { notLogged }),
        });
      }
      // Counted, not named: the names are the server's, and the audit has each one.
      deps.log?.(`server ${server}: ${changes.length} tool definition(s) held for review`);
    },
    reviewed: (server, changes, decision, by) => {
      for (const change of changes)
        deps.record({ kind: "tool_reviewed", ...changeFields(server, change), decision, by });
    },
    changed: deps.changed,
    full: (server) =>
      deps.log?.(`server ${server}: the pin file is full; its new tool definitions stay held`),
    saveFailed: (error) => deps.log?.(`the pin file could not be saved: ${String(error)}`),
    configured: deps.configured,
    moved: (from, to, pins) =>
      deps.record({
        kind: "pins_moved",
        from,
        to,
        pinned: Object.keys(pins.pinned).length,
        held: Object.keys(pins.held).length,
      }),
    notesUnreadable: (count) =>
      deps.log?.(`${count} note(s) of reviews made from the CLI could not be read`),
  };
}

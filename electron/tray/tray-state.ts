// What the tray shows, as plain data computed from the host's state: testable without
// Electron, and the one place that decides which icon and words the user sees.

export type TrayState = "ready" | "busy" | "attention" | "private";

export interface TraySnapshot {
  dockerReady: boolean;
  imagePresent: boolean;
  failedServers: string[];
  problems: number;
  runningRuns: number;
  privateClients: string[];
  paused: boolean;
  openAtLogin: boolean;
  /** Set while the audit log cannot be written: runs are refused until it can. */
  auditFailing?: boolean;
  /** Set while an engine that answered is away: runs are refused until it is back. */
  dockerUnreachable?: boolean;
  /** "Ask first" calls waiting for the user's answer. */
  pendingApprovals?: number;
  /** Tools held for review across all servers: their definitions changed since pinned. */
  heldTools?: number;
  /**
   * Servers still starting. The app takes clients before a slow server is up (at most
   * SERVER_STARTUP_WAIT_MS), so "Ready" alone would hide that its tools are not there yet.
   */
  startingServers?: string[];
}

export function trayState(s: TraySnapshot): TrayState {
  // Private-data mode outranks everything: it changes what the agent may do.
  if (s.privateClients.length > 0) return "private";
  if ((s.pendingApprovals ?? 0) > 0) return "attention";
  if ((s.heldTools ?? 0) > 0) return "attention";
  if (s.auditFailing === true) return "attention";
  if (!s.dockerReady || !s.imagePresent || s.failedServers.length > 0 || s.problems > 0)
    return "attention";
  if (s.runningRuns > 0) return "busy";
  return "ready";
}

export function statusLine(s: TraySnapshot): string {
  if (s.privateClients.length > 0) return `Private-data mode: ${s.privateClients.join(", ")}`;
  if (s.auditFailing === true) return "Runs refused: the audit log cannot be written";
  if (s.dockerUnreachable === true) return "Runs refused: Docker not reachable";
  if (!s.dockerReady) return "Needs attention: Docker is not running";
  if (!s.imagePresent) return "Needs attention: the sandbox image is not built";
  if (s.failedServers.length > 0) return `Needs attention: ${s.failedServers.join(", ")} failed`;
  if (s.problems > 0) return "Needs attention: open Code Mode for details";
  if ((s.heldTools ?? 0) > 0) return "Needs attention: tool changes to review";
  if (s.paused) return "Paused: new runs are refused";
  if (s.runningRuns > 0) return `Running ${s.runningRuns} ${s.runningRuns === 1 ? "run" : "runs"}`;
  const starting = s.startingServers ?? [];
  if (starting.length > 0) return `Ready; still starting: ${someNames(starting)}`;
  return "Ready";
}

/** How many server names a status line spells out before "and N more". */
const NAMES_SHOWN = 3;

/** A few names, so that a first start of many slow servers keeps the tray's line short. */
function someNames(names: readonly string[]): string {
  if (names.length <= NAMES_SHOWN) return names.join(", ");
  return `${names.slice(0, NAMES_SHOWN).join(", ")} and ${names.length - NAMES_SHOWN} more`;
}

export type TrayAction =
  "open" | "approvals" | "review" | "audit" | "toggle-pause" | "toggle-login" | "quit";

export type TrayItem =
  | { kind: "label"; label: string }
  | { kind: "separator" }
  | { kind: "action"; label: string; action: TrayAction }
  | { kind: "checkbox"; label: string; action: TrayAction; checked: boolean };

export function trayMenu(s: TraySnapshot): TrayItem[] {
  const waiting = s.pendingApprovals ?? 0;
  const held = s.heldTools ?? 0;
  return [
    { kind: "label", label: statusLine(s) },
    { kind: "separator" },
    // The way back to the approval panel when its notification is gone.
    ...(waiting > 0
      ? [
          {
            kind: "action" as const,
            label: `Answer ${waiting} waiting ${waiting === 1 ? "call" : "calls"}…`,
            action: "approvals" as const,
          },
        ]
      : []),
    // Held tool definitions wait on the Servers page, where each server shows its review.
    ...(held > 0
      ? [
          {
            kind: "action" as const,
            label: `Changes to review (${held})`,
            action: "review" as const,
          },
        ]
      : []),
    { kind: "action", label: "Open Code Mode", action: "open" },
    { kind: "action", label: "Audit log", action: "audit" },
    { kind: "separator" },
    { kind: "checkbox", label: "Pause new runs", action: "toggle-pause", checked: s.paused },
    { kind: "checkbox", label: "Start at login", action: "toggle-login", checked: s.openAtLogin },
    { kind: "separator" },
    { kind: "action", label: "Quit", action: "quit" },
  ];
}

import { describe, expect, it } from "vitest";
import { statusLine, trayMenu, trayState, type TraySnapshot } from "./tray-state.js";

const ready: TraySnapshot = {
  dockerReady: true,
  imagePresent: true,
  failedServers: [],
  problems: 0,
  runningRuns: 0,
  privateClients: [],
  paused: false,
  openAtLogin: false,
};

describe("tray state", () => {
  it("shows ready, busy, needs attention and private-data mode", () => {
    expect(trayState(ready)).toBe("ready");
    expect(trayState({ ...ready, runningRuns: 2 })).toBe("busy");
    expect(trayState({ ...ready, dockerReady: false })).toBe("attention");
    expect(trayState({ ...ready, failedServers: ["notes"] })).toBe("attention");
    expect(trayState({ ...ready, privateClients: ["claude-ai"], dockerReady: false })).toBe(
      "private",
    );
  });

  it("says in words what needs doing", () => {
    expect(statusLine({ ...ready, dockerReady: false })).toBe(
      "Needs attention: Docker is not running",
    );
    expect(statusLine({ ...ready, runningRuns: 1 })).toBe("Running 1 run");
    expect(statusLine({ ...ready, paused: true })).toBe("Paused: new runs are refused");
  });

  it("says runs are refused while the audit log cannot be written, and clears with it", () => {
    expect(trayState({ ...ready, auditFailing: true })).toBe("attention");
    expect(statusLine({ ...ready, auditFailing: true })).toBe(
      "Runs refused: the audit log cannot be written",
    );
    expect(statusLine({ ...ready, auditFailing: false })).toBe("Ready");
  });

  it("says which servers are still starting while the app already takes clients", () => {
    const starting = { ...ready, startingServers: ["slow", "notes"] };
    expect(trayState(starting)).toBe("ready");
    expect(statusLine(starting)).toBe("Ready; still starting: slow, notes");
    // What needs doing comes first.
    expect(statusLine({ ...starting, failedServers: ["broken"] })).toBe(
      "Needs attention: broken failed",
    );
    expect(statusLine({ ...ready, startingServers: [] })).toBe("Ready");
    expect(statusLine({ ...ready, startingServers: ["a", "b", "c", "d", "e"] })).toBe(
      "Ready; still starting: a, b, c and 2 more",
    );
  });

  it("says Docker is not reachable while a lost engine is away", () => {
    const away = { ...ready, dockerReady: false, dockerUnreachable: true };
    expect(trayState(away)).toBe("attention");
    expect(statusLine(away)).toBe("Runs refused: Docker not reachable");
  });

  it("has the tray menu's items in order, with the switches reflecting the state", () => {
    const labels = trayMenu({ ...ready, paused: true }).map((item) =>
      "label" in item ? item.label : "—",
    );
    expect(labels).toEqual([
      "Paused: new runs are refused",
      "—",
      "Open Code Mode",
      "Audit log",
      "—",
      "Pause new runs",
      "Start at login",
      "—",
      "Quit",
    ]);
    expect(trayMenu({ ...ready, paused: true })[5]).toMatchObject({
      kind: "checkbox",
      checked: true,
    });
  });
});

describe("tray and ask-first calls", () => {
  it("offers the approval panel while calls wait, and needs attention", () => {
    const waiting = { ...ready, pendingApprovals: 2 };
    expect(trayState(waiting)).toBe("attention");
    expect(trayMenu(waiting)).toContainEqual({
      kind: "action",
      label: "Answer 2 waiting calls…",
      action: "approvals",
    });
    expect(
      trayMenu(ready).some((item) => item.kind === "action" && item.action === "approvals"),
    ).toBe(false);
  });
});

describe("tray and held tool definitions", () => {
  it("says 'Changes to review (N)' while tools are held, an item that opens the Servers page", () => {
    const held = { ...ready, heldTools: 3 };
    expect(trayState(held)).toBe("attention");
    expect(statusLine(held)).toBe("Needs attention: tool changes to review");
    const labels = trayMenu(held).map((item) => ("label" in item ? item.label : "—"));
    expect(labels.slice(0, 4)).toEqual([
      "Needs attention: tool changes to review",
      "—",
      "Changes to review (3)",
      "Open Code Mode",
    ]);
    expect(trayMenu(held)).toContainEqual({
      kind: "action",
      label: "Changes to review (3)",
      action: "review",
    });
  });

  it("offers no review when nothing is held, and waiting calls come first", () => {
    for (const snapshot of [ready, { ...ready, heldTools: 0 }]) {
      expect(trayState(snapshot)).toBe("ready");
      expect(trayMenu(snapshot).some((i) => i.kind === "action" && i.action === "review")).toBe(
        false,
      );
    }
    const both = trayMenu({ ...ready, heldTools: 1, pendingApprovals: 1 });
    expect(both.filter((i) => i.kind === "action").map((i) => i.label)).toEqual([
      "Answer 1 waiting call…",
      "Changes to review (1)",
      "Open Code Mode",
      "Audit log",
      "Quit",
    ]);
  });
});

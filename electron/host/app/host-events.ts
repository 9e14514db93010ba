// The host's services' events as the faces see them: the API's event stream (what the UI and
// the tray follow), the audit log (a private-data rule reset by the user) and the host's log.
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { API_LIMITS } from "../../../shared/limits.js";
import type { EventHub } from "../api/event-hub.js";
import { pageOf } from "../api/handlers/list-page.js";
import { taintViews } from "../api/server-views.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { HostAudit } from "../audit/host-audit.js";
import type { TaintRegistry } from "../core/bridge/taint.js";
import type { CodeModeEngine } from "../core/engine/code-mode-engine.js";
import type { ServerSet } from "../servers/server-set.js";
import type { AppStatus } from "./app-status.js";

export interface HostEventSources {
  events: EventHub;
  taint: TaintRegistry;
  record: (entry: AuditEntryInput) => void;
  log: ((line: string) => void) | undefined;
  engine: Pick<CodeModeEngine, "onCatalogError">;
  status: Pick<AppStatus, "changed">;
  servers: Pick<ServerSet, "on">;
  hostAudit: Pick<HostAudit, "onHealthChange">;
  audit: Pick<AuditLog, "subscribe" | "onVerifyProgress">;
  /** A server's status or tools changed: the host sends its server views again. */
  serversChanged: () => void;
}

export function forwardHostEvents(sources: HostEventSources): void {
  const { events, taint, record, log, engine, status, servers, hostAudit, audit } = sources;
  hostAudit.onHealthChange(() => status.changed());
  // app.info carries Docker's state too.
  events.on("docker.changed", () => status.changed());
  taint.onChange((change) => {
    if (change.type === "reset") {
      record({
        kind: "taint_reset",
        client: change.client,
        previousTool: change.previous.pyName,
      });
    }
    events.emit("taint.changed", pageOf(taintViews(taint), API_LIMITS.taintPageMaxLimit));
  });
  engine.onCatalogError((message) => {
    log?.(
      `the tools of a server changed but cannot be used: ${message}; keeping the previous tools that did not change`,
    );
    status.changed();
  });
  servers.on("status", () => sources.serversChanged());
  servers.on("tools", () => sources.serversChanged());
  audit.subscribe((entry) => events.emit("audit.entry", entry));
  audit.onVerifyProgress((progress) => events.emit("audit.verify", progress));
}

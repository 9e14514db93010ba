// The run engine and the sandbox it runs in, put together the one way every face does it: the
// app (code-mode-host.ts) and `codemode serve` both build theirs here. The sandbox is made first
// (warm containers start at once) and stages the engine's catalog once there is an engine; each
// catalog change after reaches the warm containers; "ask first" reads the config at each call.
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import type { ApprovalView } from "../../../shared/api/api-views.js";
import { ApprovalService } from "../core/approvals/approval-service.js";
import { configAsksFirst } from "../core/approvals/ask-policy.js";
import type { BridgeEventSink } from "../core/bridge/bridge-events.js";
import type { TaintRegistry } from "../core/bridge/taint.js";
import type { ServerTools } from "../core/catalog/catalog-types.js";
import {
  CodeModeEngine,
  type EngineServers,
  type EngineSettings,
  type RunEvents,
} from "../core/engine/code-mode-engine.js";
import type { SandboxRunner, SandboxTool } from "../core/ports/run-types.js";
import type { AttachmentPort, WorkspacePort } from "../core/ports/workspace-port.js";
import type { ServersConfig } from "../core/ports/server-config-types.js";
import { configSecrets } from "../core/secrets/secret-mask.js";

/** What the builder needs of a sandbox: it runs code, and stages each new catalog. */
export interface StagingSandbox extends SandboxRunner {
  /** The catalog changed: warm containers get it staged. */
  catalogChanged(): void;
}

export interface RunEngineOptions {
  servers: EngineServers;
  sandbox: StagingSandbox;
  taint: TaintRegistry;
  /** Where the bridge's decisions go (the audit log in the app; nowhere in `serve`). */
  events: BridgeEventSink;
  runEvents?: RunEvents;
  /** Whether tool names carry their server (`server__tool`). */
  prefixWithServer: boolean;
  settings?: EngineSettings;
  /** Start with no tools and report a catalog error, rather than throw it (the app). */
  tolerateCatalogErrors?: boolean;
  /** What the catalog is built from, when not the servers' own view (pins mark held tools). */
  serverTools?: () => ServerTools[];
  /** The clients' named workspaces and the attached files' keeper; absent: runs have none. */
  workspaces?: WorkspacePort;
  attachments?: AttachmentPort;
  approvals: {
    /** The config read at each call: a policy changed in the UI applies to the next call. */
    config: () => ServersConfig;
    /** Whether a tool's arguments stay out of the audit log (hideArgs); none do unless said. */
    hidesArgs?: (server: string, tool: string) => boolean;
    record: (entry: AuditEntryInput) => void;
    changed: (views: ApprovalView[]) => void;
    timeoutSeconds: number;
    /** False where no app or browser can answer (`serve`): only the client can be asked. */
    userPresent?: boolean;
  };
}

export interface RunEngine {
  engine: CodeModeEngine;
  /** "Ask first" calls waiting for an answer. */
  approvals: ApprovalService;
}

/**
 * Two steps, since the sandbox must exist before the engine: `stagedTools` goes into the
 * sandbox's options, then `build` makes the engine around that sandbox.
 */
export interface RunEngineBuilder {
  /** What warm containers are staged with: the engine's catalog, null until it exists. */
  readonly stagedTools: () => readonly SandboxTool[] | null;
  /** Throws CatalogError at a clash, unless tolerateCatalogErrors. */
  build(options: RunEngineOptions): RunEngine;
}

export function runEngineBuilder(): RunEngineBuilder {
  let built: CodeModeEngine | null = null;
  return {
    stagedTools: () => built?.stagedTools() ?? null,
    build(options) {
      const { approvals: asking, sandbox } = options;
      const approvals = new ApprovalService({
        asksFirst: (server, tool) => configAsksFirst(asking.config(), server, tool),
        hidesArgs: asking.hidesArgs,
        record: asking.record,
        changed: asking.changed,
        secrets: () => configSecrets(asking.config()),
        timeoutSeconds: asking.timeoutSeconds,
        userPresent: asking.userPresent,
      });
      const { servers, taint, events, runEvents, prefixWithServer, settings } = options;
      const { tolerateCatalogErrors, serverTools, workspaces, attachments } = options;
      const engine = new CodeModeEngine({
        ...{ servers, sandbox, taint, events, runEvents, prefixWithServer, settings },
        ...{ tolerateCatalogErrors, serverTools, approvals, workspaces, attachments },
      });
      built = engine;
      // Warm containers already idle get the catalog now, and each change after.
      sandbox.catalogChanged();
      engine.onCatalogChange(() => sandbox.catalogChanged());
      return { engine, approvals };
    },
  };
}

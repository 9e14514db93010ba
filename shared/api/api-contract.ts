// The one API contract between the host and every UI face. Channel names, the shape of
// each request's params (zod, validated in the host on arrival), each result type and each
// event type are declared here once; the preload, the IPC handlers, the WebSocket
// transport and the renderer's client are all typed from these maps.
import { z } from "zod";
import { type AuditEntry } from "../audit-entry.js";
import { sha256Hex } from "../audit-entry-fields.js";
import {
  auditFilterSchema,
  type AuditRunDetail,
  type AuditVerifyProgress,
  type AuditVerifyResult,
} from "../audit-query-types.js";
import {
  API_LIMITS,
  APPROVAL_LIMITS,
  AUDIT_LIMITS,
  HOST_LIMITS,
  MCPB_LIMITS,
  WORKSPACE_LIMITS,
} from "../limits.js";
import { serverEntryInput, storedSecretRef, type StoredSecretRef } from "../server-entry-schema.js";
import { settingsPatchSchema } from "../settings.js";
import type {
  ApprovalView,
  AppInfoView,
  BuildProgress,
  BundleView,
  ClaudeDesktopPreview,
  ClientSnippets,
  ClientView,
  DockerStatusView,
  FieldError,
  HeldToolView,
  ImageStatusView,
  RuntimesView,
  SandboxPoolView,
  ListPage,
  ServerPage,
  SettingsView,
  TaintView,
  ToolView,
  TryServerView,
  WorkspaceFileView,
  WorkspaceView,
} from "./api-views.js";

const none = z.strictObject({});
/** A workspace, by its client and name (the host checks the name's characters). */
const workspaceRef = {
  client: z.string().min(1).max(HOST_LIMITS.clientNameMaxChars),
  workspace: z.string().min(1).max(WORKSPACE_LIMITS.nameMaxChars),
};
const workspacePath = z.string().min(1).max(WORKSPACE_LIMITS.pathMaxChars);
/** One chunk of a file, base64: at most WORKSPACE_LIMITS.transferChunkBytes once decoded. */
const transferChunk = z.string().max(Math.ceil(WORKSPACE_LIMITS.transferChunkBytes / 3) * 4);
const serverName = z.string().min(1).max(API_LIMITS.serverNameMaxChars);

/** A page of a long list: from index `after` (0 when absent), `limit` at most `maxLimit`. */
const pageParams = (maxLimit: number) =>
  z.strictObject({
    after: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(maxLimit).optional(),
  });

// The entry's one schema, also the file's; the UI names these from the contract.
export { serverEntryInput, storedSecretRef, type StoredSecretRef };

// The UI imports the filter's type from here, with the rest of the contract.
export type { AuditFilter } from "../audit-query-types.js";

/** A .mcpb file as the UI sends it: base64, at most MCPB_LIMITS.uploadMaxBytes once decoded. */
const bundleBytes = z
  .string()
  .min(1)
  .max(Math.ceil(MCPB_LIMITS.uploadMaxBytes / 3) * 4);

/** The values of a bundle's user_config options (or a catalog entry's settings), by key. */
const settingValues = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/** Params of every request, validated by the host before a handler sees them. */
export const API_PARAMS = {
  "app.info": none,
  "app.description": none,
  "app.setPaused": z.strictObject({ paused: z.boolean() }),
  "docker.status": none,
  "image.status": none,
  /**
   * With `baseFrom`, the base image the engine lacks is loaded from that `docker save` archive
   * (a path on the machine the app runs on); without, from another engine found, if one has it.
   */
  "image.build": z.strictObject({
    baseFrom: z.string().min(1).max(API_LIMITS.pathMaxChars).optional(),
  }),
  "sandbox.runtimes": none,
  "sandbox.pool": none,
  "config.get": none,
  "config.save": z.strictObject({ json: z.string().max(API_LIMITS.configTextMaxChars) }),
  "config.parseSnippet": z.strictObject({
    text: z.string().max(API_LIMITS.configTextMaxChars),
  }),
  "config.claudeDesktopServers": none,
  "servers.list": pageParams(API_LIMITS.serversPageMaxLimit),
  "servers.upsert": z.strictObject({
    name: z.string().max(API_LIMITS.upsertNameMaxChars),
    previousName: serverName.optional(),
    entry: serverEntryInput,
    /** Adding, not editing: a name already in use is refused instead of replaced. */
    addOnly: z.boolean().optional(),
  }),
  "servers.try": z.strictObject({
    name: z.string().max(API_LIMITS.upsertNameMaxChars),
    /** The server being edited, whose saved secrets stand in for their masks. */
    previousName: serverName.optional(),
    entry: serverEntryInput,
  }),
  "servers.readBundle": z.strictObject({ bundle: bundleBytes }),
  "servers.addBundle": z.strictObject({
    name: z.string().max(API_LIMITS.upsertNameMaxChars),
    bundle: bundleBytes,
    values: settingValues,
  }),
  "servers.tryBundle": z.strictObject({
    name: z.string().max(API_LIMITS.upsertNameMaxChars),
    bundle: bundleBytes,
    values: settingValues,
  }),
  "servers.remove": z.strictObject({ name: serverName }),
  "servers.restart": z.strictObject({ name: serverName }),
  /** One page of the server's tools: from index `after` (0 when absent), `limit` at most. */
  "servers.tools": z.strictObject({
    name: serverName,
    after: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(API_LIMITS.toolsPageMaxLimit).optional(),
  }),
  "servers.setToolPolicy": z.strictObject({
    name: serverName,
    tool: z.string().min(1).max(API_LIMITS.toolNameMaxChars),
    allowed: z.boolean().optional(),
    private: z.boolean().optional(),
    ask: z.boolean().optional(),
    /** Keep the tool's arguments out of the audit log. */
    hideArgs: z.boolean().optional(),
  }),
  /** "Ask first" for every tool of the server (true) or for none (false). */
  "servers.setAsk": z.strictObject({ name: serverName, ask: z.boolean() }),
  /** Held tool definitions (of every server when `name` is absent), paged like servers.tools. */
  "servers.held": z.strictObject({
    name: serverName.optional(),
    after: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(API_LIMITS.heldPageMaxLimit).optional(),
  }),
  /**
   * Accept (re-pin) or reject held definitions: each tool with the hash of the definition the
   * user was shown (HeldToolView.hash; "Accept all" sends every one it shows). A tool whose
   * held definition is no longer that one (the server changed it again) fails the whole
   * request as a conflict, nothing reviewed; not_found when none of the tools is held.
   */
  "servers.review": z.strictObject({
    name: serverName,
    decision: z.enum(["accept", "reject"]),
    tools: z
      .array(
        z.strictObject({
          tool: z.string().min(1).max(API_LIMITS.toolNameMaxChars),
          hash: sha256Hex.nullable(),
        }),
      )
      .min(1)
      .max(API_LIMITS.reviewMaxTools)
      .refine((tools) => new Set(tools.map((t) => t.tool)).size === tools.length, {
        message: "names a tool more than once",
      }),
  }),
  "clients.list": pageParams(API_LIMITS.clientsPageMaxLimit),
  "clients.snippets": none,
  "clients.claudeDesktopPreview": none,
  "clients.claudeDesktopApply": z.strictObject({ expectedBefore: z.string() }),
  "approvals.list": none,
  "approvals.answer": z.strictObject({
    id: z.string().min(1).max(APPROVAL_LIMITS.idMaxChars),
    answer: z.enum(["allow_once", "allow_run", "deny"]),
  }),
  "taint.list": pageParams(API_LIMITS.taintPageMaxLimit),
  "taint.reset": z.strictObject({
    client: z.string().min(1).max(API_LIMITS.clientKeyMaxChars),
  }),
  "settings.get": none,
  "settings.save": settingsPatchSchema,
  "audit.query": z.strictObject({
    filter: auditFilterSchema,
    limit: z.number().int().min(1).max(AUDIT_LIMITS.queryMaxLimit),
    before: z.number().int().positive().optional(),
  }),
  "audit.run": z.strictObject({ runId: z.string().min(1).max(API_LIMITS.runIdMaxChars) }),
  "audit.verify": none,
  "workspaces.list": none,
  "workspaces.files": z.strictObject(workspaceRef),
  /**
   * Up to WORKSPACE_LIMITS.transferChunkBytes of a file from `offset`. Chunks after the first
   * pass the `fileId` it answered: refused once the file changed, so a download is never made
   * of two versions' bytes.
   */
  "workspaces.read": z.strictObject({
    ...workspaceRef,
    path: workspacePath,
    offset: z.number().int().min(0),
    fileId: z.string().min(1).max(64).optional(),
  }),
  /**
   * One chunk of a file going into a workspace, in order from offset 0 (the first chunk has no
   * uploadId and gets one); the chunk with `last` puts the whole file in (refused whole past the
   * size limit). The workspace is made if it is new.
   */
  "workspaces.upload": z.strictObject({
    ...workspaceRef,
    path: workspacePath,
    uploadId: z.string().min(1).max(64).optional(),
    offset: z.number().int().min(0),
    data: transferChunk,
    last: z.boolean(),
  }),
  "workspaces.deleteFile": z.strictObject({ ...workspaceRef, path: workspacePath }),
  "workspaces.delete": z.strictObject(workspaceRef),
  /** A file a run attached, by its codemode:// link (as its run_finished entry lists it). */
  "attachments.read": z.strictObject({ uri: z.string().min(1).max(API_LIMITS.pathMaxChars) }),
} as const;

export type ApiChannel = keyof typeof API_PARAMS;
export const API_CHANNELS = Object.keys(API_PARAMS) as ApiChannel[];

/** The result type of every request. */
export interface ApiResults {
  "app.info": AppInfoView;
  "app.description": { text: string };
  "app.setPaused": AppInfoView;
  "docker.status": DockerStatusView;
  "image.status": ImageStatusView;
  "image.build": { started: boolean };
  "sandbox.runtimes": RuntimesView;
  "sandbox.pool": SandboxPoolView;
  "config.get": { json: string; servers: ServerPage };
  "config.save": ServerPage;
  "config.parseSnippet": { servers: Record<string, z.infer<typeof serverEntryInput>> };
  "config.claudeDesktopServers": {
    path: string;
    servers: Record<string, z.infer<typeof serverEntryInput>>;
  };
  /**
   * A page of the servers; the answers of the calls that change the list (upsert, remove, ...)
   * and the servers.changed event carry its first page.
   */
  "servers.list": ServerPage;
  "servers.upsert": ServerPage;
  "servers.try": TryServerView;
  "servers.readBundle": { bundle: BundleView; suggestedName: string };
  "servers.addBundle": ServerPage;
  "servers.tryBundle": TryServerView;
  "servers.remove": ServerPage;
  "servers.restart": ServerPage;
  /** `next`: the `after` of the following page, null on the last one. */
  "servers.tools": { tools: ToolView[]; next: number | null };
  /** The one tool as it now is; null when the server does not list it (yet). */
  "servers.setToolPolicy": ToolView | null;
  "servers.setAsk": ServerPage;
  /** `next`: the `after` of the following page, null on the last one. */
  "servers.held": { held: HeldToolView[]; next: number | null };
  /** How many held definitions the decision applied to (servers.changed follows). */
  "servers.review": { reviewed: number };
  "approvals.list": ApprovalView[];
  /** answered: false when the request had already been answered, timed out or ended. */
  "approvals.answer": { answered: boolean };
  "clients.list": ListPage<ClientView>;
  "clients.snippets": ClientSnippets;
  "clients.claudeDesktopPreview": ClaudeDesktopPreview;
  "clients.claudeDesktopApply": { path: string; backup: string | null };
  "taint.list": ListPage<TaintView>;
  "taint.reset": ListPage<TaintView>;
  "settings.get": SettingsView;
  "settings.save": SettingsView;
  "audit.query": { entries: AuditEntry[]; nextBefore: number | null };
  "audit.run": AuditRunDetail;
  "audit.verify": AuditVerifyResult;
  "workspaces.list": WorkspaceView[];
  "workspaces.files": WorkspaceFileView[];
  /** `data`: base64; `total`: the file's whole size; `fileId`: the same while its bytes are. */
  "workspaces.read": { data: string; offset: number; total: number; fileId: string };
  "workspaces.upload": { uploadId: string; done: boolean };
  "workspaces.deleteFile": WorkspaceView[];
  "workspaces.delete": WorkspaceView[];
  "attachments.read": { name: string; mimeType: string; bytes: number; data: string };
}

export type ApiParams<C extends ApiChannel> = z.input<(typeof API_PARAMS)[C]>;
export type ApiResult<C extends ApiChannel> = ApiResults[C];

/** Events the host pushes to subscribers. */
export interface ApiEvents {
  "audit.entry": AuditEntry;
  "audit.verify": AuditVerifyProgress;
  /** The first page of each list (see ListPage): the UI asks for further pages itself. */
  "servers.changed": ServerPage;
  "clients.changed": ListPage<ClientView>;
  "taint.changed": ListPage<TaintView>;
  "image.build": BuildProgress;
  "docker.changed": DockerStatusView;
  "settings.changed": SettingsView;
  "app.changed": AppInfoView;
  /** The calls waiting for the user, whenever one starts or stops waiting. */
  "approvals.changed": ApprovalView[];
  /** The sandboxes, when their counts change (looked at every POOL_VIEW_SAMPLE_MS at most). */
  "sandbox.pool": SandboxPoolView;
}
export type ApiEventName = keyof ApiEvents;
export const API_EVENTS = [
  "audit.entry",
  "audit.verify",
  "servers.changed",
  "clients.changed",
  "taint.changed",
  "image.build",
  "docker.changed",
  "settings.changed",
  "app.changed",
  "approvals.changed",
  "sandbox.pool",
] as const satisfies readonly ApiEventName[];

/** Errors cross the API as data, never as thrown exceptions. */
/** `too_large`: the answer was over API_LIMITS.responseMaxChars (page it, or narrow it). */
export type ApiErrorCode =
  "invalid" | "not_found" | "conflict" | "unavailable" | "internal" | "too_large";
export interface ApiError {
  code: ApiErrorCode;
  message: string;
  fields?: FieldError[];
}
export type ApiResponse<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** The host side: one async function per channel. */
export type ApiHandlers = {
  [C in ApiChannel]: (
    params: z.output<(typeof API_PARAMS)[C]>,
  ) => ApiResult<C> | Promise<ApiResult<C>>;
};

/** The UI side: what the preload exposes and what the WebSocket client implements. */
export interface ApiClient {
  request<C extends ApiChannel>(
    channel: C,
    params: ApiParams<C>,
  ): Promise<ApiResponse<ApiResult<C>>>;
  subscribe<E extends ApiEventName>(
    event: E,
    listener: (payload: ApiEvents[E]) => void,
  ): () => void;
}

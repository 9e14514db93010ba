// The workspaces as the Sandbox page manages them (list, files, download, upload, delete) and the
// files runs attached, as the Audit page downloads them. Every change the user makes here is on
// the record (workspace_edited, by "ui").
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";
import type { AttachmentStore } from "../../sandbox/workspaces/attachment-store.js";
import {
  deleteWorkspaceFile,
  readWorkspaceFile,
  workspaceFiles,
} from "../../sandbox/workspaces/workspace-edits.js";
import { workspacePathParts } from "../../sandbox/workspaces/workspace-name.js";
import type { WorkspaceStore } from "../../sandbox/workspaces/workspace-store.js";
import type { WorkspaceUploads } from "../../sandbox/workspaces/workspace-uploads.js";

export interface WorkspaceServices {
  store: WorkspaceStore;
  uploads: WorkspaceUploads;
  attachments: AttachmentStore;
  record: (entry: AuditEntryInput) => void;
}

type WorkspaceChannels =
  | "workspaces.list"
  | "workspaces.files"
  | "workspaces.read"
  | "workspaces.upload"
  | "workspaces.deleteFile"
  | "workspaces.delete"
  | "attachments.read";

/** A refusal the user can act on (a bad name, no such file, over the limit) is an invalid request. */
async function refusalsAsData<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RunNotStarted) throw new ApiFailure("invalid", error.message);
    throw error;
  }
}

export function workspaceHandlers(
  services: WorkspaceServices,
): Pick<ApiHandlers, WorkspaceChannels> {
  const { store, uploads, attachments, record } = services;
  return {
    "workspaces.list": () => store.list(),
    "workspaces.files": ({ client, workspace }) =>
      refusalsAsData(() => workspaceFiles(store, client, workspace)),
    "workspaces.read": ({ client, workspace, path, offset, fileId }) =>
      refusalsAsData(async () => {
        const chunk = await readWorkspaceFile(
          store,
          client,
          workspace,
          path,
          offset,
          WORKSPACE_LIMITS.transferChunkBytes,
          fileId,
        );
        const data = chunk.data.toString("base64");
        return { data, offset, total: chunk.total, fileId: chunk.fileId };
      }),
    "workspaces.upload": (request) =>
      refusalsAsData(async () => {
        const { client, workspace, path, last } = request;
        const done = await uploads.chunk({ ...request, data: Buffer.from(request.data, "base64") });
        if (done.added !== null) {
          const shown = workspacePathParts(path).join("/");
          record({
            kind: "workspace_edited",
            client,
            workspace,
            action: "file_added",
            by: "ui",
            path: shown,
            bytes: done.added.bytes,
            sha256: done.added.sha256,
          });
        }
        return { uploadId: done.uploadId, done: last };
      }),
    "workspaces.deleteFile": ({ client, workspace, path }) =>
      refusalsAsData(async () => {
        await deleteWorkspaceFile(store, client, workspace, path);
        const shown = workspacePathParts(path).join("/");
        record({
          kind: "workspace_edited",
          client,
          workspace,
          action: "file_removed",
          by: "ui",
          path: shown,
        });
        return store.list();
      }),
    "workspaces.delete": ({ client, workspace }) =>
      refusalsAsData(async () => {
        await store.remove(client, workspace);
        record({
          kind: "workspace_edited",
          client,
          workspace,
          action: "workspace_removed",
          by: "ui",
        });
        return store.list();
      }),
    "attachments.read": async ({ uri }) => {
      const file = await attachments.read(uri);
      if (file === null) throw new ApiFailure("not_found", "that attached file is no longer kept");
      const { name, mimeType, bytes } = file.meta;
      return { name, mimeType, bytes, data: file.data.toString("base64") };
    },
  };
}

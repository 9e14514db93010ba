// The clients' workspaces and the files runs attach, as the app keeps them in its data
// directory: the store, the containers' slots, the attached files, the UI's uploads; swept of
// what is past its keep time, and the CLI's changes taken into the audit log, on a timer.
import path from "node:path";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { MiB } from "../util/units.js";
import type { Settings } from "../servers/settings/settings.js";
import { AttachmentStore } from "../sandbox/workspaces/attachment-store.js";
import { takeEditNotes } from "../sandbox/workspaces/workspace-notes.js";
import { SlotRoot } from "../sandbox/workspaces/workspace-slots.js";
import { WorkspaceStore } from "../sandbox/workspaces/workspace-store.js";
import { WorkspaceUploads } from "../sandbox/workspaces/workspace-uploads.js";

/** Unused workspaces and old attached files are looked for this often (and at start). */
export const WORKSPACE_SWEEP_INTERVAL_MS = 60 * 60_000;
/** Changes `codemode workspace` made are taken into the audit log this often. */
export const WORKSPACE_NOTES_POLL_MS = 1_000;

/** Where each part is kept, under the data directory. */
export function workspacePaths(dataDir: string) {
  return {
    store: path.join(dataDir, "workspaces"),
    slots: path.join(dataDir, "slots"),
    attachments: path.join(dataDir, "attachments"),
  };
}

export interface HostWorkspaces {
  store: WorkspaceStore;
  slots: SlotRoot;
  attachments: AttachmentStore;
  uploads: WorkspaceUploads;
  /** A file a run of `client` attached, for that client's resources/read; null if none. */
  readAttachment: (
    uri: string,
    client: string,
  ) => Promise<{ mimeType: string; data: Buffer } | null>;
  /** Sweeps leftovers now, then on a timer; takes the CLI's notes on another. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `record` is the audit log's; null where there is none (`codemode serve`): then the changes
 * `codemode workspace` made are left for the app to take into its log.
 */
export function hostWorkspaces(
  dataDir: string,
  settings: () => Settings,
  record: ((entry: AuditEntryInput) => void) | null,
  log: (line: string) => void = () => undefined,
): HostWorkspaces {
  const paths = workspacePaths(dataDir);
  const limits = () => {
    const s = settings();
    return {
      maxBytes: s.workspaceMaxMiB * MiB,
      perClient: s.workspacesPerClient,
      keepDays: s.workspaceKeepDays,
    };
  };
  const store = new WorkspaceStore(paths.store, limits);
  const slots = new SlotRoot(paths.slots);
  const attachments = new AttachmentStore(paths.attachments, () => settings().auditRetentionDays);
  const uploads = new WorkspaceUploads(store, () => limits().maxBytes);
  const timers: NodeJS.Timeout[] = [];

  const sweep = async (): Promise<void> => {
    for (const gone of await store.sweep()) {
      record?.({
        kind: "workspace_edited",
        client: gone.client,
        workspace: gone.name,
        action: "workspace_removed",
        by: "sweep",
      });
    }
    await attachments.sweep();
  };
  const takeNotes = async (): Promise<void> => {
    if (record === null) return;
    const { notes, unreadable } = await takeEditNotes(paths.store);
    for (const { at: _at, ...note } of notes)
      record({ kind: "workspace_edited", ...note, by: "cli" });
    if (unreadable > 0)
      log(`workspaces: ${unreadable} notes of codemode workspace could not be read`);
  };
  const every = (ms: number, job: () => Promise<void>, what: string): void => {
    const timer = setInterval(() => {
      job().catch((error: unknown) => log(`workspaces: ${what}: ${String(error)}`));
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    store,
    slots,
    attachments,
    uploads,
    readAttachment: async (uri, client) => {
      const file = await attachments.read(uri, client);
      return file && { mimeType: file.meta.mimeType, data: file.data };
    },
    async start() {
      await slots.sweep().catch((error: unknown) => log(`workspaces: slots: ${String(error)}`));
      await takeNotes().catch((error: unknown) => log(`workspaces: notes: ${String(error)}`));
      void sweep().catch((error: unknown) => log(`workspaces: sweep: ${String(error)}`));
      every(WORKSPACE_SWEEP_INTERVAL_MS, sweep, "sweep");
      every(WORKSPACE_NOTES_POLL_MS, takeNotes, "notes");
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await uploads.close().catch(() => undefined);
    },
  };
}

// Files the UI puts into a workspace, a chunk per request (an API message is bounded): each
// upload grows a staging file, and its last chunk puts the whole file into the workspace as one
// change, refused whole past the size limit.
import { createHash, randomBytes, type Hash } from "node:crypto";
import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";
import { putWorkspaceFile } from "./workspace-edits.js";
import { workspacePathParts } from "./workspace-name.js";
import { WorkspaceRefused, type WorkspaceStore } from "./workspace-store.js";

/** An upload with no chunk for this long is dropped. */
export const UPLOAD_IDLE_MS = 10 * 60_000;
/** Uploads under way at once; starting one more drops the oldest. */
export const UPLOADS_MAX = 16;

interface Upload {
  client: string;
  workspace: string;
  path: string;
  file: string;
  bytes: number;
  hash: Hash;
  touched: number;
}

export class WorkspaceUploads {
  private readonly uploads = new Map<string, Upload>();

  constructor(
    private readonly store: WorkspaceStore,
    private readonly maxBytes: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  private get dir(): string {
    return path.join(this.store.root, ".uploads");
  }

  /**
   * Adds one chunk: the first (no `uploadId`) starts an upload. With `last`, the file goes into
   * the workspace; returns what it added then.
   */
  async chunk(request: {
    client: string;
    workspace: string;
    path: string;
    uploadId?: string | undefined;
    offset: number;
    data: Buffer;
    last: boolean;
  }): Promise<{ uploadId: string; added: { bytes: number; sha256: string } | null }> {
    await this.dropIdle();
    const rel = workspacePathParts(request.path).join("/");
    let id = request.uploadId;
    let upload = id === undefined ? undefined : this.uploads.get(id);
    if (id === undefined) {
      id = randomBytes(12).toString("hex");
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      upload = {
        client: request.client,
        workspace: request.workspace,
        path: rel,
        file: path.join(this.dir, id),
        bytes: 0,
        hash: createHash("sha256"),
        touched: this.now(),
      };
      this.uploads.set(id, upload);
      await this.keepFew();
    }
    if (
      upload === undefined ||
      upload.client !== request.client ||
      upload.workspace !== request.workspace ||
      upload.path !== rel
    ) {
      throw new WorkspaceRefused(
        "that upload is not under way (it was finished, or dropped after being idle): start it again",
      );
    }
    if (request.offset !== upload.bytes) {
      throw new WorkspaceRefused(
        `the upload is at byte ${upload.bytes}, not ${request.offset}: send the chunks in order`,
      );
    }
    if (upload.bytes + request.data.length > this.maxBytes()) {
      await this.drop(id);
      throw new WorkspaceRefused(`"${rel}" is larger than a workspace may hold`);
    }
    const handle = await open(upload.file, "a", 0o600);
    try {
      await handle.write(request.data);
    } finally {
      await handle.close();
    }
    upload.bytes += request.data.length;
    upload.hash.update(request.data);
    upload.touched = this.now();
    if (!request.last) return { uploadId: id, added: null };
    try {
      await putWorkspaceFile(
        this.store,
        upload.client,
        upload.workspace,
        rel,
        upload.file,
        this.maxBytes(),
      );
      return { uploadId: id, added: { bytes: upload.bytes, sha256: upload.hash.digest("hex") } };
    } finally {
      await this.drop(id);
    }
  }

  private async drop(id: string): Promise<void> {
    const upload = this.uploads.get(id);
    this.uploads.delete(id);
    if (upload) await rm(upload.file, { force: true });
  }

  private async dropIdle(): Promise<void> {
    for (const [id, upload] of this.uploads) {
      if (this.now() - upload.touched > UPLOAD_IDLE_MS) await this.drop(id);
    }
  }

  private async keepFew(): Promise<void> {
    while (this.uploads.size > UPLOADS_MAX) await this.drop(this.uploads.keys().next().value!);
  }

  /** Drops every upload under way (the host stops). */
  async close(): Promise<void> {
    for (const id of [...this.uploads.keys()]) await this.drop(id);
  }
}

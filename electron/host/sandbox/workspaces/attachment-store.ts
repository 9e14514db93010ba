// The files runs attach (attach(path)), kept in the data directory for the client that ran the
// code to read back by their codemode:// link (resources/read), and for the user to download
// from the Audit page. The link's id is random: only its client's sessions can read it, and
// another client is told there is no such file, as for one that never was.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { RunFile } from "../../../../shared/run-result.js";
import type { RunFileData } from "../../core/ports/run-types.js";
import type { AttachmentPort } from "../../core/ports/workspace-port.js";
import { isErrno } from "../../util/errno.js";
import { MiB } from "../../util/units.js";

/** The scheme and host of an attached file's link: `codemode://files/<id>/<name>`. */
export const ATTACHMENT_URI_PREFIX = "codemode://files/";

/** Attached files kept in all; past it the oldest go first. */
export const ATTACHMENTS_MAX_TOTAL_BYTES = 512 * MiB;

const ID_HEX_CHARS = 32;

const metaSchema = z.object({
  id: z.string(),
  client: z.string(),
  runId: z.string(),
  name: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string(),
  mimeType: z.string(),
  at: z.string(),
});
export type AttachmentMeta = z.infer<typeof metaSchema>;

/** The id in an attached file's link, or null when it is not one of ours. */
export function attachmentId(uri: string): string | null {
  if (!uri.startsWith(ATTACHMENT_URI_PREFIX)) return null;
  const id = uri.slice(ATTACHMENT_URI_PREFIX.length, ATTACHMENT_URI_PREFIX.length + ID_HEX_CHARS);
  for (let i = 0; i < id.length; i++) {
    const c = id.charAt(i);
    if (!((c >= "0" && c <= "9") || (c >= "a" && c <= "f"))) return null;
  }
  if (id.length !== ID_HEX_CHARS) return null;
  const rest = uri.slice(ATTACHMENT_URI_PREFIX.length + ID_HEX_CHARS);
  return rest === "" || rest.startsWith("/") ? id : null;
}

export class AttachmentStore implements AttachmentPort {
  constructor(
    /** `<data dir>/attachments` */
    readonly root: string,
    /** How long attached files are kept (the audit log's retention). */
    private readonly keepDays: () => number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async keep(owner: { client: string; runId: string }, file: RunFileData): Promise<RunFile> {
    const id = randomBytes(ID_HEX_CHARS / 2).toString("hex");
    const dir = path.join(this.root, id);
    const building = path.join(this.root, `.building-${id}`);
    await mkdir(building, { recursive: true, mode: 0o700 });
    const meta: AttachmentMeta = {
      id,
      client: owner.client,
      runId: owner.runId,
      name: file.name,
      bytes: file.bytes,
      sha256: file.sha256,
      mimeType: file.mimeType,
      at: this.now().toISOString(),
    };
    await writeFile(path.join(building, "data"), file.data, { mode: 0o600 });
    await writeFile(path.join(building, "meta.json"), JSON.stringify(meta), { mode: 0o600 });
    await rename(building, dir);
    const { data: _data, ...listed } = file;
    return { ...listed, uri: `${ATTACHMENT_URI_PREFIX}${id}/${file.name}` };
  }

  private async meta(id: string): Promise<AttachmentMeta | null> {
    try {
      const parsed = metaSchema.safeParse(
        JSON.parse(await readFile(path.join(this.root, id, "meta.json"), "utf8")),
      );
      return parsed.success ? parsed.data : null;
    } catch (error) {
      if (isErrno(error, "ENOENT") || error instanceof SyntaxError) return null;
      throw error;
    }
  }

  /**
   * The file a link names, for the client that ran the code (`client`), or for the user (no
   * client); null when there is none, or it is another client's.
   */
  async read(uri: string, client?: string): Promise<{ meta: AttachmentMeta; data: Buffer } | null> {
    const id = attachmentId(uri);
    if (id === null) return null;
    const meta = await this.meta(id);
    if (meta === null || (client !== undefined && meta.client !== client)) return null;
    try {
      return { meta, data: await readFile(path.join(this.root, id, "data")) };
    } catch (error) {
      if (isErrno(error, "ENOENT")) return null;
      throw error;
    }
  }

  /** Removes files older than the keep time, then the oldest while over the total size. */
  async sweep(): Promise<number> {
    const ids = await readdir(this.root).catch(() => [] as string[]);
    const metas: AttachmentMeta[] = [];
    let removed = 0;
    for (const id of ids) {
      if (id.startsWith(".building-")) {
        const info = await stat(path.join(this.root, id)).catch(() => null);
        // One being written now is young; one left by a crash is not.
        if (info !== null && this.now().getTime() - info.mtimeMs > 60_000) {
          await rm(path.join(this.root, id), { recursive: true, force: true });
        }
        continue;
      }
      const meta = await this.meta(id);
      if (meta === null) continue;
      metas.push(meta);
    }
    const cutoff = this.now().getTime() - this.keepDays() * 24 * 60 * 60 * 1000;
    metas.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    let total = metas.reduce((sum, meta) => sum + meta.bytes, 0);
    for (const meta of metas) {
      if (Date.parse(meta.at) >= cutoff && total <= ATTACHMENTS_MAX_TOTAL_BYTES) continue;
      await rm(path.join(this.root, meta.id), { recursive: true, force: true });
      total -= meta.bytes;
      removed++;
    }
    return removed;
  }
}

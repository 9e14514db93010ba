import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pack } from "tar-stream";

export const IMAGE_REPOSITORY = "codemode-sandbox";

export interface ContextFile {
  /** Path inside the context, with forward slashes. */
  name: string;
  content: Buffer;
}

/** Files of the build context in a fixed order, so the hash depends only on content. */
export function readContext(dir: string): ContextFile[] {
  const files: ContextFile[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${entry}` : entry;
      const full = path.join(dir, relPath);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(relPath);
      else if (stat.isFile()) files.push({ name: relPath, content: readFileSync(full) });
    }
  };
  walk("");
  return files;
}

export function contextHash(files: readonly ContextFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file.name}\0${file.content.length}\0`);
    hash.update(file.content);
  }
  return hash.digest("hex");
}

/** `codemode-sandbox:<first 12 hex of the context hash>`: a changed context is a new tag. */
export function imageTagFor(files: readonly ContextFile[]): string {
  return `${IMAGE_REPOSITORY}:${contextHash(files).slice(0, 12)}`;
}

export function contextTar(files: readonly ContextFile[]): Readable {
  const tar = pack();
  for (const file of files) {
    // Fixed owner, mode and time: the image does not depend on the checkout's metadata.
    tar.entry({ name: file.name, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }, file.content);
  }
  tar.finalize();
  // tar-stream's Pack is a streamx Readable, which dockerode pipes like a Node one.
  return tar as unknown as Readable;
}

export type BuildEvent =
  { kind: "step"; step: number; total: number; text: string } | { kind: "log"; text: string };

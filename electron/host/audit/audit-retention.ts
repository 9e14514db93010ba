// Retention by age, and the limits of age and size as the log resolves them. Size is in
// audit-size-cap.ts.
import { stat } from "node:fs/promises";
import path from "node:path";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { unlinkIfPresent } from "./audit-durable-write.js";
import { lastCompleteLine, listTornFiles, parseHead, type AuditFile } from "./audit-files.js";

export const DAY_MS = 24 * 60 * 60 * 1000;

export function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

export interface AuditLimits {
  maxFileBytes: number;
  retentionDays: number;
  maxTotalBytes: number;
}

/** The limits asked for, each falling back (to `fallback`, else the default) when not positive. */
export function auditLimits(
  asked: Partial<AuditLimits>,
  fallback: AuditLimits = {
    maxFileBytes: AUDIT_LIMITS.defaultMaxFileBytes,
    retentionDays: AUDIT_LIMITS.defaultRetentionDays,
    maxTotalBytes: AUDIT_LIMITS.defaultMaxTotalBytes,
  },
): AuditLimits {
  return {
    maxFileBytes: positive(asked.maxFileBytes, fallback.maxFileBytes),
    retentionDays: positive(asked.retentionDays, fallback.retentionDays),
    maxTotalBytes: positive(asked.maxTotalBytes, fallback.maxTotalBytes),
  };
}

/**
 * Deletes the oldest files whose newest entry is older than `cutoffMs`, stopping at the first
 * file to keep, so what remains is always one unbroken stretch of the chain. `.torn` files go
 * by their own age.
 */
export async function pruneOldFiles(
  dir: string,
  files: AuditFile[],
  cutoffMs: number,
  keep: string | null,
  /** Told the seq the log will start at (null: after the last file) before a file goes. */
  beforeRemove: (firstSeq: number | null) => Promise<void> | undefined,
): Promise<{ removed: string[]; kept: AuditFile[] }> {
  const removed: string[] = [];
  let index = 0;
  for (; index < files.length; index += 1) {
    const file = files[index] as AuditFile;
    if (file.path === keep) break;
    const newest = await newestEntryMs(file.path);
    if (newest >= cutoffMs) break;
    await beforeRemove(files[index + 1]?.firstSeq ?? null);
    await unlinkIfPresent(file.path);
    removed.push(file.name);
  }
  for (const name of await listTornFiles(dir)) {
    const tornPath = path.join(dir, name);
    const info = await stat(tornPath).catch(() => null);
    if (info !== null && info.mtimeMs < cutoffMs) {
      await unlinkIfPresent(tornPath);
      removed.push(name);
    }
  }
  return { removed, kept: files.slice(index) };
}

async function newestEntryMs(file: string): Promise<number> {
  const line = await lastCompleteLine(file);
  const parsed = line === null ? null : parseHead(line);
  // A file whose last line cannot be dated goes by when it was last written.
  return parsed?.tsMs ?? (await stat(file)).mtimeMs;
}

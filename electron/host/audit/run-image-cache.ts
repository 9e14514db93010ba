import { AUDIT_LIMITS, IMAGE_LIMITS } from "../../../shared/limits.js";
import type { AuditRunImage, AuditRunOutput } from "../../../shared/audit-query-types.js";
import type { RunResult } from "../../../shared/run-result.js";
import { maskSecrets } from "../core/secrets/secret-mask.js";
import { cutUtf8 } from "../util/text-cut.js";
import type { RunImageData } from "../core/ports/run-types.js";

/** The host keeps the images of this many recent runs in memory, for the Audit page. */
export const IMAGE_CACHED_RUNS = IMAGE_LIMITS.cachedRuns;

/**
 * The images of the most recent runs, and what they printed, in memory only, so the Audit page
 * can show them while the app runs: the log keeps each image's name, size and hash, and how
 * much a run printed, never the bytes (printed output is the data a run read, which the log
 * leaves out as it does the results of calls). At most `maxRuns` runs are kept of each (the
 * oldest run's go first); each run holds at most IMAGE_LIMITS.totalBytesPerRun bytes of images
 * (the session refuses more) and AUDIT_LIMITS.runOutputShownBytes of each stream, so the cache
 * stays bounded.
 */
export class RunImageCache {
  private readonly runs = new Map<string, RunImageData[]>();
  private readonly outputs = new Map<string, AuditRunOutput>();

  constructor(private readonly maxRuns: number = IMAGE_CACHED_RUNS) {}

  add(runId: string, image: RunImageData): void {
    let images = this.runs.get(runId);
    if (images === undefined) {
      images = [];
      this.runs.set(runId, images);
      keepNewest(this.runs, this.maxRuns);
    }
    images.push(image);
  }

  /** Keeps what the run printed: each stream cut to its start, every secret masked. */
  addOutput(
    runId: string,
    result: Pick<RunResult, "stdout" | "stderr">,
    secrets: readonly string[],
  ): void {
    this.outputs.set(runId, {
      stdout: cutUtf8(maskSecrets(result.stdout, secrets), AUDIT_LIMITS.runOutputShownBytes),
      stderr: cutUtf8(maskSecrets(result.stderr, secrets), AUDIT_LIMITS.runOutputShownBytes),
      stdoutBytes: Buffer.byteLength(result.stdout),
      stderrBytes: Buffer.byteLength(result.stderr),
    });
    keepNewest(this.outputs, this.maxRuns);
  }

  /** The run's images as the UI shows them (base64 PNG), or [] when none are held. */
  get(runId: string): AuditRunImage[] {
    return (this.runs.get(runId) ?? []).map((image) => ({
      name: image.name,
      bytes: image.bytes,
      sha256: image.sha256,
      width: image.width,
      height: image.height,
      pngBase64: image.png.toString("base64"),
    }));
  }

  /** What the run printed, or null when it is not held (an older run, or one of before a restart). */
  output(runId: string): AuditRunOutput | null {
    return this.outputs.get(runId) ?? null;
  }

  get size(): number {
    return this.runs.size;
  }
}

/** Drops the oldest keys past `max` (a Map iterates in insertion order). */
function keepNewest(map: Map<string, unknown>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next().value as string;
    map.delete(oldest);
  }
}

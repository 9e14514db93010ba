import type { AuditRunImage } from "../../../shared/audit-query-types.js";
import type { RunImageData } from "../core/ports/run-types.js";

/** The host keeps the images of this many recent runs in memory, for the Audit page. */
export const IMAGE_CACHED_RUNS = 16;

/**
 * The images of the most recent runs, in memory only, so the Audit page can show them while
 * the app runs: the log keeps each image's name, size and hash, never its bytes. At most
 * `maxRuns` runs are kept (the oldest run's images go first); each run holds at most
 * IMAGE_LIMITS.totalBytesPerRun bytes (the session refuses more), so the cache stays bounded.
 */
export class RunImageCache {
  private readonly runs = new Map<string, RunImageData[]>();

  constructor(private readonly maxRuns: number = IMAGE_CACHED_RUNS) {}

  add(runId: string, image: RunImageData): void {
    let images = this.runs.get(runId);
    if (images === undefined) {
      images = [];
      this.runs.set(runId, images);
      // A Map iterates in insertion order: the first key is the oldest run.
      while (this.runs.size > this.maxRuns) {
        const oldest = this.runs.keys().next().value as string;
        this.runs.delete(oldest);
      }
    }
    images.push(image);
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

  get size(): number {
    return this.runs.size;
  }
}

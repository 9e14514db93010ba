import { record } from "./report.js";

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * One result in milliseconds beside its baseline and what that baseline is, recorded for
 * run-all's table (bench/report.ts).
 */
export function row(
  label: string,
  ms: number,
  baseline: number,
  baselineWhat: string,
  note = "",
): string {
  return record({ what: label.trim(), value: ms, baseline, baselineWhat, note });
}

/**
 * Waits for a condition. The default cap is long on purpose: on a busy machine a warm container
 * can take minutes to be ready, and a bench must not fail because the machine is busy.
 */
export async function waitFor(check: () => boolean, timeoutMs = 300_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

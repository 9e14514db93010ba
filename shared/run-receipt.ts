// A run's receipt: the bytes its run_python result cost the model against the bytes its calls'
// results would have cost one call at a time. Shared by the Audit page (per run and in total)
// and its tests; free of Node imports.
import type { AuditEntry, RunFinishedEntry } from "./audit-entry.js";

export interface RunReceipt {
  /** UTF-8 bytes of the run_python content the client was sent. */
  resultBytes: number;
  /** UTF-8 bytes of the calls' results, as a client calling the tools itself would get them. */
  oneByOneBytes: number;
}

/** The run's receipt; null for entries of older logs, and for runs whose calls got no result. */
export function receiptOf(entry: RunFinishedEntry): RunReceipt | null {
  if (entry.resultBytes === undefined || entry.oneByOneBytes === undefined) return null;
  if (entry.oneByOneBytes === 0) return null;
  return { resultBytes: entry.resultBytes, oneByOneBytes: entry.oneByOneBytes };
}

/** The sum over the runs among `entries` that have a receipt, with how many they are. */
export function totalReceipt(
  entries: readonly AuditEntry[],
): (RunReceipt & { runs: number }) | null {
  let runs = 0;
  let resultBytes = 0;
  let oneByOneBytes = 0;
  for (const entry of entries) {
    if (entry.kind !== "run_finished") continue;
    const receipt = receiptOf(entry);
    if (receipt === null) continue;
    runs += 1;
    resultBytes += receipt.resultBytes;
    oneByOneBytes += receipt.oneByOneBytes;
  }
  return runs === 0 ? null : { runs, resultBytes, oneByOneBytes };
}

/** "99.8 % fewer", or "12.0 % more" when the run's result was the larger. */
export function savingText(receipt: RunReceipt): string {
  const ratio = 1 - receipt.resultBytes / receipt.oneByOneBytes;
  // One decimal: 99.8 % and 100 % fewer are not the same receipt.
  const shown = (Math.abs(ratio) * 100).toFixed(1);
  return ratio >= 0 ? `${shown} % fewer` : `${shown} % more`;
}

// A run's receipt: what its run_python result gave the model to read against what its calls'
// results would have given it one call at a time. Images (and audio) are counted apart on both
// sides: a model sees an image, it does not read its base64 as text, so counting those bytes
// made a run that showed one chart read as waste. Shared by the host (which measures), the
// Audit page (per run and in total) and its tests; free of Node imports.
import type { AuditEntry, RunFinishedEntry } from "./audit-entry.js";

export interface RunReceipt {
  /** UTF-8 bytes of the run's result the model reads as text: its content without the images. */
  runTextBytes: number;
  /** The same of the calls' results, one call at a time: their content without images and audio. */
  oneByOneTextBytes: number;
  /** Images the run attached with show(): the model sees them, they are not text. */
  images: number;
}

/** `{"type":"image","data":"","mimeType":"image/png"}`: an image item of run_python's content. */
const EMPTY_IMAGE_ITEM_BYTES = JSON.stringify({
  type: "image",
  data: "",
  mimeType: "image/png",
}).length;

/**
 * UTF-8 bytes an image of `pngBytes` adds to run_python's content as JSON: the comma before
 * its item, the item, and the PNG in base64 (which JSON does not escape). The host's measure
 * (runPythonContentBytes) and the receipt's take-away use this one sum.
 */
export function imageContentBytes(pngBytes: number): number {
  return 1 + EMPTY_IMAGE_ITEM_BYTES + 4 * Math.ceil(pngBytes / 3);
}

/** The run's receipt; null for entries of older logs, and for runs whose calls got no result. */
export function receiptOf(entry: RunFinishedEntry): RunReceipt | null {
  if (entry.resultBytes === undefined || entry.oneByOneBytes === undefined) return null;
  if (entry.oneByOneBytes === 0) return null;
  const images = entry.images ?? [];
  const imageBytes = images.reduce((sum, image) => sum + imageContentBytes(image.bytes), 0);
  return {
    runTextBytes: Math.max(0, entry.resultBytes - imageBytes),
    oneByOneTextBytes: Math.max(0, entry.oneByOneBytes - (entry.oneByOneMediaBytes ?? 0)),
    images: images.length,
  };
}

/** The sum over the runs among `entries` that have a receipt, with how many they are. */
export function totalReceipt(
  entries: readonly AuditEntry[],
): (RunReceipt & { runs: number }) | null {
  const total = { runs: 0, runTextBytes: 0, oneByOneTextBytes: 0, images: 0 };
  for (const entry of entries) {
    if (entry.kind !== "run_finished") continue;
    const receipt = receiptOf(entry);
    if (receipt === null) continue;
    total.runs += 1;
    total.runTextBytes += receipt.runTextBytes;
    total.oneByOneTextBytes += receipt.oneByOneTextBytes;
    total.images += receipt.images;
  }
  return total.runs === 0 ? null : total;
}

/**
 * Below this difference the two sides read as the same: a traceback or a few printed lines
 * either way is nothing a person (or the model's budget) can act on.
 */
export const RECEIPT_SAME_BYTES = 1000;

/**
 * What the model was spared (positive) or given more (negative) to read, in bytes; 0 when the
 * two sides differ by less than RECEIPT_SAME_BYTES.
 */
export function savedBytes(receipt: RunReceipt): number {
  const saved = receipt.oneByOneTextBytes - receipt.runTextBytes;
  return Math.abs(saved) < RECEIPT_SAME_BYTES ? 0 : saved;
}

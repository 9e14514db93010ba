// The run's receipt in words a person reads without knowing what a byte of JSON is: how much
// less (or more) the model had to read than if it had called the tools one at a time. No
// percentage: "2583 % more" of a run that showed a chart told nobody anything to act on.
import { savedBytes, type RunReceipt } from "../../../shared/run-receipt.js";
import { formatBytes, plural } from "./format.js";

const ONE_BY_ONE = "than calling the tools one at a time";

/** The comparison alone: "About 34.8 KB less for the model to read than ...". */
export function receiptComparison(receipt: RunReceipt): string {
  const saved = savedBytes(receipt);
  if (saved === 0) return `About as much for the model to read as calling the tools one at a time`;
  const amount = formatBytes(Math.abs(saved));
  return saved > 0
    ? `About ${amount} less for the model to read ${ONE_BY_ONE}`
    : `About ${amount} more for the model to read ${ONE_BY_ONE}: the run's output was longer than what its calls returned`;
}

/** One run's receipt: the comparison, then what each side was, and its images apart. */
export function receiptText(receipt: RunReceipt): string {
  const sides = `it read ${formatBytes(receipt.runTextBytes)} instead of ${formatBytes(receipt.oneByOneTextBytes)}`;
  const images =
    receipt.images === 0
      ? ""
      : `; ${receipt.images === 1 ? "its image is" : `its ${receipt.images} images are`} shown to the model, not read as text`;
  return `${receiptComparison(receipt)} (${sides}${images}).`;
}

/** The total over the loaded runs, for the list's footer. */
export function totalReceiptText(total: RunReceipt & { runs: number }): string {
  return `${plural(total.runs, "loaded run")}: ${lowerFirst(receiptComparison(total))}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

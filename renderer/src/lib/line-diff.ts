// A line diff for the review of held tool definitions: the pinned text beside
// the one the server sends now. The texts come from a wrapped server, so the work is capped:
// a longest-common-subsequence table costs lines × lines cells, and a hostile description of
// thousands of distinct lines would otherwise freeze the page. Past the caps the caller shows
// both sides whole, with the note this returns.
import { REVIEW_DIFF_LIMITS } from "../../../shared/limits.js";

export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

export type LineDiff =
  /** Line by line; `cells` is the size of the table it filled (bounded by cellsMax). */
  | { kind: "lines"; lines: DiffLine[]; cells: number }
  /** Too big to compare: show `before` and `after` whole, with `note` saying why. */
  | { kind: "whole"; before: string; after: string; note: string };

export interface LineDiffLimits {
  linesMax: number;
  cellsMax: number;
}

/** The lines of `before` and `after` as removed / added / same, or both whole past the caps. */
export function lineDiff(
  before: string,
  after: string,
  limits: LineDiffLimits = REVIEW_DIFF_LIMITS,
): LineDiff {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length > limits.linesMax || b.length > limits.linesMax) {
    return {
      kind: "whole",
      before,
      after,
      note: `Too long to compare line by line (${Math.max(a.length, b.length)} lines; the comparison stops at ${limits.linesMax}): both versions are shown whole.`,
    };
  }
  // Lines become numbers once (linear in the text), so the table compares numbers, never
  // long strings with a long common start.
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const x = a.map(idOf);
  const y = b.map(idOf);

  // The common start and end cost nothing to find and are most of a typical change.
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endA = x.length;
  let endB = y.length;
  while (endA > start && endB > start && x[endA - 1] === y[endB - 1]) {
    endA--;
    endB--;
  }
  const m = endA - start;
  const n = endB - start;
  const cells = (m + 1) * (n + 1);
  if (m > 0 && n > 0 && cells > limits.cellsMax) {
    return {
      kind: "whole",
      before,
      after,
      note: `Too many changed lines to compare (${m} against ${n}): both versions are shown whole.`,
    };
  }

  const lines: DiffLine[] = [];
  for (let i = 0; i < start; i++) lines.push({ kind: "same", text: a[i]! });
  let used = 0;
  if (m === 0 || n === 0) {
    for (let i = start; i < endA; i++) lines.push({ kind: "removed", text: a[i]! });
    for (let j = start; j < endB; j++) lines.push({ kind: "added", text: b[j]! });
  } else {
    used = cells;
    // lcs[i * (n + 1) + j]: the longest common subsequence of the middles from i and j on.
    const lcs = new Uint32Array(cells);
    const w = n + 1;
    for (let i = m - 1; i >= 0; i--) {
      for (let j = n - 1; j >= 0; j--) {
        lcs[i * w + j] =
          x[start + i] === y[start + j]
            ? lcs[(i + 1) * w + j + 1]! + 1
            : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < m && j < n) {
      if (x[start + i] === y[start + j]) {
        lines.push({ kind: "same", text: a[start + i]! });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
        lines.push({ kind: "removed", text: a[start + i]! });
        i++;
      } else {
        lines.push({ kind: "added", text: b[start + j]! });
        j++;
      }
    }
    for (; i < m; i++) lines.push({ kind: "removed", text: a[start + i]! });
    for (; j < n; j++) lines.push({ kind: "added", text: b[start + j]! });
  }
  for (let i = endA; i < a.length; i++) lines.push({ kind: "same", text: a[i]! });
  return { kind: "lines", lines, cells: used };
}

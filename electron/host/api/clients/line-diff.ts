/**
 * A unified-style diff of two small texts (config files), so a person can see exactly what
 * an edit to their file will change before it is written. Quadratic LCS: fine for files of
 * a few thousand lines, which is what client configs are.
 */
export function lineDiff(before: string, after: string, context = 3): string {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        a[i] === b[j]
          ? (lcs[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const ops: { sign: " " | "-" | "+"; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ sign: " ", text: a[i] ?? "" });
      i++;
      j++;
    } else if (j < m && (i >= n || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      ops.push({ sign: "+", text: b[j] ?? "" });
      j++;
    } else {
      ops.push({ sign: "-", text: a[i] ?? "" });
      i++;
    }
  }
  const keep = ops.map((op, index) =>
    ops.slice(Math.max(0, index - context), index + context + 1).some((o) => o.sign !== " "),
  );
  const lines: string[] = [];
  let skipped = false;
  ops.forEach((op, index) => {
    if (keep[index]) {
      lines.push(`${op.sign} ${op.text}`);
      skipped = false;
    } else if (!skipped) {
      lines.push("  …");
      skipped = true;
    }
  });
  return lines.join("\n");
}

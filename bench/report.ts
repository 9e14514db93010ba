// One form for every benchmark's results: each bench reports rows (what was measured, its value,
// the baseline measured in the same run, the ratio, a note), printed as it goes. `run-all`
// collects the rows of every bench and turns them into the table of docs/performance.md, with
// the date and the machine the run was made on. A bench run alone (`npx tsx bench/x.ts`) prints the
// same lines; nothing else changes.
import os from "node:os";
import path from "node:path";

export interface BenchRow {
  /** The bench that measured it (its file name without `.ts`). */
  bench: string;
  /** What was measured, standing alone: a reader of the table sees no other context. */
  what: string;
  value: number;
  /** "ms", "s", "MiB", "KiB", "B", "runs/s", ... */
  unit: string;
  /** The baseline measured in the same run, in the same unit; null when there is none. */
  baseline: number | null;
  /** What the baseline is (e.g. "cold hardened `docker run -i`"); "" when there is none. */
  baselineWhat: string;
  note: string;
}

/**
 * One result as a bench reports it. A baseline must say what it is, so that every row of the
 * table reads alone; a row without one says so by leaving both out.
 */
export type RowInput = {
  what: string;
  value: number;
  unit?: string;
  note?: string;
} & ({ baseline: number; baselineWhat: string } | { baseline?: null; baselineWhat?: undefined });

/** The machine a run was made on, read once at its start. */
export interface Machine {
  date: string;
  cpu: string;
  cores: number;
  /** 1-minute load average at the start of the run. */
  load: number;
  docker: string | null;
  runtime: string;
}

interface Collector {
  bench: string;
  rows: BenchRow[];
}

// On globalThis: run-all and the benches it imports may load this module through different
// specifiers (tsx), and must still share one list.
const KEY = Symbol.for("codemode.bench.report");
function collector(): Collector {
  const global = globalThis as { [KEY]?: Collector };
  global[KEY] ??= { bench: path.basename(process.argv[1] ?? "bench", ".ts"), rows: [] };
  return global[KEY];
}

/** Names the bench whose rows come next (run-all, before importing each bench). */
export function beginBench(name: string): void {
  collector().bench = name;
}

/** Every row reported so far in this process. */
export function reportedRows(): readonly BenchRow[] {
  return collector().rows;
}

/** Records one result and prints it in the common form; returns the printed line. */
export function report(input: RowInput): string {
  const text = record(input);
  console.log(text);
  return text;
}

/** Records one result; returns its line in the common form for the caller to print. */
export function record(input: RowInput): string {
  const row: BenchRow = {
    bench: collector().bench,
    what: input.what,
    value: input.value,
    unit: input.unit ?? "ms",
    baseline: input.baseline ?? null,
    baselineWhat: input.baselineWhat ?? "",
    note: input.note ?? "",
  };
  collector().rows.push(row);
  return formatLine(row);
}

/** `value / baseline` as "0.05x"; small ratios keep their significant digits. */
export function formatRatio(value: number, baseline: number | null): string {
  if (baseline === null || !Number.isFinite(value)) return "";
  if (baseline === 0) return value === 0 ? "1.00x" : "";
  const ratio = value / baseline;
  if (ratio === 0) return "0x";
  if (ratio >= 100) return `${ratio.toFixed(0)}x`;
  if (ratio >= 0.01) return `${ratio.toFixed(2)}x`;
  return `${ratio.toPrecision(2)}x`;
}

/** A value with its unit: whole numbers past 100, else up to 3 significant digits. */
export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return "—";
  const digits =
    Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
  const grouped = Math.abs(value) >= 1000 ? Number(digits).toLocaleString("en-US") : digits;
  return unit ? `${grouped} ${unit}` : grouped;
}

/** The baseline with what it is: "350 ms: cold hardened `docker run -i`"; "" when none. */
export function formatBaseline(row: BenchRow): string {
  if (row.baseline === null) return "";
  const value = formatValue(row.baseline, row.unit);
  return row.baselineWhat ? `${value}: ${row.baselineWhat}` : value;
}

function formatLine(row: BenchRow): string {
  const ratio = formatRatio(row.value, row.baseline);
  return [
    `[${row.bench}]`,
    row.what.padEnd(52),
    formatValue(row.value, row.unit).padStart(12),
    ratio.padStart(9),
    row.baseline === null ? "" : `vs ${formatBaseline(row)}`,
    row.note ? `(${row.note})` : "",
  ]
    .filter(Boolean)
    .join("  ")
    .trimEnd();
}

/** Records that the running bench failed (threw, or its run broke), named in the table. */
export function recordFailure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const first = text.split("\n").find((line) => line.trim() !== "") ?? "no message";
  return record({
    what: "FAILED (no result)",
    value: Number.NaN,
    unit: "",
    note: first.slice(0, 300),
  });
}

/** A markdown cell: pipes escaped, line breaks flattened. */
function cell(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .join(" ")
    .replaceAll("|", "\\|");
}

export function machineLine(machine: Machine): string {
  return (
    `${machine.date}, ${machine.cpu} (${machine.cores} cores), load average ${machine.load.toFixed(1)} ` +
    `at the start, Docker engine ${machine.docker ?? "not reachable"}, ${machine.runtime}`
  );
}

/** How long a whole run took, and each bench in it (seconds). */
export interface RunTiming {
  totalSeconds: number;
  benches: readonly { bench: string; seconds: number }[];
}

/** "12 min 5 s", "48 s". */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/**
 * The table of docs/performance.md: one row per result, each with its bench (to rerun it alone), what was
 * measured, the baseline measured in the same run and what it is, and the ratio; the machine
 * above, and how long the run and each bench took below.
 */
export function markdownTable(
  rows: readonly BenchRow[],
  machine: Machine,
  timing: RunTiming | null = null,
): string {
  const lines = [
    `Generated by \`npm run bench -- --write-docs\` on ${machineLine(machine)}. ` +
      "Each ratio is the value over the baseline beside it, both measured in that run; " +
      "rerun one bench with `npm run bench -- --only <bench>`.",
    "",
    "| bench | what is measured | value | baseline in the same run | ratio | note |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((row) =>
      [
        "",
        `\`${row.bench}\``,
        cell(row.what),
        formatValue(row.value, row.unit),
        cell(formatBaseline(row)),
        formatRatio(row.value, row.baseline),
        cell(row.note),
        "",
      ]
        .join(" | ")
        .trim(),
    ),
  ];
  if (timing !== null) {
    const each = timing.benches
      .map(({ bench, seconds }) => `\`${bench}\` ${formatDuration(seconds)}`)
      .join(", ");
    lines.push("", `The whole run took ${formatDuration(timing.totalSeconds)}: ${each}.`);
  }
  return lines.join("\n");
}

export const TABLE_START = "<!-- bench:start -->";
export const TABLE_END = "<!-- bench:end -->";

/** `page` with what lies between the bench markers replaced by `table`. */
export function replaceBetweenMarkers(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`no ${TABLE_START} … ${TABLE_END} section to write the table into`);
  }
  return `${page.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${page.slice(end)}`;
}

/** The machine now: CPU, cores, load average, and the engine's version (null when unreachable). */
export function machineNow(docker: string | null, now: Date = new Date()): Machine {
  const cpus = os.cpus();
  return {
    date: now.toISOString().slice(0, 10),
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: cpus.length,
    load: os.loadavg()[0] ?? 0,
    docker,
    runtime: `Node ${process.version} on ${os.type()} ${os.release()}`,
  };
}

import { describe, expect, it } from "vitest";
import {
  beginBench,
  formatDuration,
  formatRatio,
  formatValue,
  markdownTable,
  record,
  recordFailure,
  TABLE_END,
  TABLE_START,
  replaceBetweenMarkers,
  reportedRows,
  type Machine,
} from "./report.js";

const machine: Machine = {
  date: "2026-12-02",
  cpu: "Test CPU @ 2.0GHz",
  cores: 2,
  load: 7.25,
  docker: "29.1.0",
  runtime: "Node v20.0.0 on Linux 6.1",
};

describe("bench report", () => {
  it("records rows under the bench that is running, with the ratio and what the baseline is", () => {
    beginBench("sample");
    const line = record({
      what: "warm pool",
      value: 20,
      baseline: 400,
      baselineWhat: "cold docker run",
    });
    expect(line).toContain("[sample]");
    expect(line).toContain("20 ms");
    expect(line).toContain("vs 400 ms: cold docker run");
    expect(line).toContain("0.05x");
    expect(reportedRows().at(-1)).toEqual({
      bench: "sample",
      what: "warm pool",
      value: 20,
      unit: "ms",
      baseline: 400,
      baselineWhat: "cold docker run",
      note: "",
    });
  });

  it("names a failed bench in a row of its own, with the first line of its error", () => {
    beginBench("broken");
    const line = recordFailure(new Error("\ntimed out waiting for the pool\n    at stack"));
    expect(line).toContain("[broken]");
    expect(line).toContain("FAILED");
    const row = reportedRows().at(-1)!;
    expect(row).toMatchObject({
      bench: "broken",
      baseline: null,
      note: "timed out waiting for the pool",
    });
    expect(markdownTable([row], machine)).toContain(
      "| `broken` | FAILED (no result) | — |  |  | timed out waiting for the pool |",
    );
    expect(recordFailure("a string thrown")).toContain("a string thrown");
  });

  it("formats ratios, values and durations readably at every scale", () => {
    expect(formatRatio(1, 1)).toBe("1.00x");
    expect(formatRatio(0.09, 31_226)).toBe("0.0000029x");
    expect(formatRatio(6805, 33)).toBe("206x");
    expect(formatRatio(5, null)).toBe("");
    expect(formatRatio(Number.NaN, 5)).toBe("");
    expect(formatValue(31_226.4, "ms")).toBe("31,226 ms");
    expect(formatValue(0.0912, "ms")).toBe("0.0912 ms");
    expect(formatValue(3.22, "runs/s")).toBe("3.22 runs/s");
    expect(formatValue(Number.NaN, "ms")).toBe("—");
    expect(formatDuration(48.4)).toBe("48 s");
    expect(formatDuration(1205)).toBe("20 min 5 s");
  });

  it("writes a markdown table: bench, what, value, the baseline with what it is, ratio, note", () => {
    const table = markdownTable(
      [
        {
          bench: "b",
          what: "a | b",
          value: 3,
          unit: "ms",
          baseline: 6,
          baselineWhat: "the | old way",
          note: "line\nbreak",
        },
        {
          bench: "b",
          what: "no baseline",
          value: 2.5,
          unit: "MiB",
          baseline: null,
          baselineWhat: "",
          note: "",
        },
      ],
      machine,
    );
    expect(table).toContain(
      "2026-12-02, Test CPU @ 2.0GHz (2 cores), load average 7.3 at the start, Docker engine 29.1.0, Node v20.0.0 on Linux 6.1",
    );
    expect(table).toContain("npm run bench -- --only <bench>");
    expect(table).toContain(
      "| bench | what is measured | value | baseline in the same run | ratio | note |",
    );
    expect(table).toContain(
      "| `b` | a \\| b | 3 ms | 6 ms: the \\| old way | 0.50x | line break |",
    );
    expect(table).toContain("| `b` | no baseline | 2.5 MiB |  |  |  |");
    expect(table).not.toContain("took");
  });

  it("says under the table how long the whole run and each bench took", () => {
    const table = markdownTable([], machine, {
      totalSeconds: 1150,
      benches: [
        { bench: "pool-burst", seconds: 125.4 },
        { bench: "schema-pattern", seconds: 6 },
      ],
    });
    expect(table.split("\n").at(-1)).toBe(
      "The whole run took 19 min 10 s: `pool-burst` 2 min 5 s, `schema-pattern` 6 s.",
    );
  });

  it("replaces only what lies between the markers, and refuses a page without them", () => {
    const page = `# R\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nafter\n`;
    const written = replaceBetweenMarkers(page, "new table");
    expect(written).toBe(`# R\n\n${TABLE_START}\n\nnew table\n\n${TABLE_END}\n\nafter\n`);
    // Idempotent: writing again gives the same text.
    expect(replaceBetweenMarkers(written, "new table")).toBe(written);
    expect(() => replaceBetweenMarkers("# R\n", "t")).toThrow(/bench:start/);
  });
});

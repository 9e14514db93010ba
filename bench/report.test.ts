import { describe, expect, it } from "vitest";
import {
  beginBench,
  formatRatio,
  formatValue,
  markdownTable,
  record,
  README_END,
  README_START,
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
  it("records rows under the bench that is running, with the ratio to the baseline", () => {
    beginBench("sample");
    const line = record({ what: "warm pool", value: 20, baseline: 400 });
    expect(line).toContain("[sample]");
    expect(line).toContain("20 ms");
    expect(line).toContain("baseline 400 ms");
    expect(line).toContain("0.05x");
    expect(reportedRows().at(-1)).toEqual({
      bench: "sample",
      what: "warm pool",
      value: 20,
      unit: "ms",
      baseline: 400,
      note: "",
    });
  });

  it("formats ratios and values readably at every scale", () => {
    expect(formatRatio(1, 1)).toBe("1.00x");
    expect(formatRatio(0.09, 31_226)).toBe("0.0000029x");
    expect(formatRatio(6805, 33)).toBe("206x");
    expect(formatRatio(5, null)).toBe("");
    expect(formatValue(31_226.4, "ms")).toBe("31,226 ms");
    expect(formatValue(0.0912, "ms")).toBe("0.0912 ms");
    expect(formatValue(Number.NaN, "ms")).toBe("—");
  });

  it("writes a markdown table with the machine, pipes in a note escaped", () => {
    const table = markdownTable(
      [
        { bench: "b", what: "a | b", value: 3, unit: "ms", baseline: 6, note: "line\nbreak" },
        { bench: "b", what: "no baseline", value: 2.5, unit: "MiB", baseline: null, note: "" },
      ],
      machine,
    );
    expect(table).toContain(
      "2026-12-02, Test CPU @ 2.0GHz (2 cores), load average 7.3 at the start, Docker engine 29.1.0, Node v20.0.0 on Linux 6.1",
    );
    expect(table).toContain("| `b` | a \\| b | 3 ms | 6 ms | 0.50x | line break |");
    expect(table).toContain("| `b` | no baseline | 2.5 MiB |  |  |  |");
  });

  it("replaces only what lies between the markers, and refuses a README without them", () => {
    const readme = `# R\n\n${README_START}\nold table\n${README_END}\n\nafter\n`;
    const written = replaceBetweenMarkers(readme, "new table");
    expect(written).toBe(`# R\n\n${README_START}\n\nnew table\n\n${README_END}\n\nafter\n`);
    // Idempotent: writing again gives the same text.
    expect(replaceBetweenMarkers(written, "new table")).toBe(written);
    expect(() => replaceBetweenMarkers("# R\n", "t")).toThrow(/bench:start/);
  });
});

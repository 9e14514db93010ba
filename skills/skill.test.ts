import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BRIDGE_LIMITS,
  CATALOG_LIMITS,
  HOST_LIMITS,
  IMAGE_LIMITS,
  RUN_LIMITS,
  SANDBOX_LIMITS,
  SETTINGS_BOUNDS,
} from "../shared/limits.js";
import { OUTPUT_STOP_BYTES } from "../electron/host/sandbox/runner/stop-messages.js";

const skill = readFileSync(new URL("./codemode/SKILL.md", import.meta.url), "utf8");

function row(name: string): string {
  const line = skill.split("\n").find((l) => l.startsWith(`| ${name} |`));
  if (!line) throw new Error(`SKILL.md has no row "${name}"`);
  return line;
}

// The skill is what an agent reads before writing code: its numbers must be the code's.
describe("skills/codemode/SKILL.md", () => {
  it("states the limits the code enforces", () => {
    expect(row("tool calls per run")).toContain(`| ${BRIDGE_LIMITS.defaultMaxCallsPerRun} |`);
    expect(row("run deadline")).toContain(`${RUN_LIMITS.defaultDeadlineSeconds} seconds`);
    expect(row("run deadline")).toContain(`raise it to ${SETTINGS_BOUNDS.deadlineSeconds.max}`);
    expect(row("one call")).toContain(`${BRIDGE_LIMITS.callTimeoutMs / 1000} seconds`);
    expect(row("arguments per call")).toContain(`${BRIDGE_LIMITS.argsMaxBytes / 1024} KiB`);
    expect(row("result per call")).toContain(`${BRIDGE_LIMITS.resultMaxBytes / 1024} KiB`);
    expect(row("output kept")).toContain(`${RUN_LIMITS.stdoutKeptBytes / 1024} KiB stdout`);
    expect(row("output kept")).toContain(`${RUN_LIMITS.stderrKeptBytes / 1024} KiB stderr`);
    expect(row("memory")).toContain(`${SANDBOX_LIMITS.memoryBytes / 1024 / 1024} MiB`);
    expect(row("images per run")).toContain(
      `| ${IMAGE_LIMITS.perRun}, each at most ${IMAGE_LIMITS.maxBytes / 1024 / 1024} MiB (a larger one is downscaled), ${IMAGE_LIMITS.totalBytesPerRun / 1024 / 1024} MiB together |`,
    );
  });

  it("teaches looking tools up first, with the search's real bounds", () => {
    const prose = skill.split(/\s+/).join(" ");
    expect(prose).toContain("Look tools up first.");
    expect(prose).toContain(
      `(${CATALOG_LIMITS.searchDefaultResults} by default, \`limit=\` up to ${CATALOG_LIMITS.searchMaxResults}, \`detail="stub"\` for their stubs)`,
    );
  });

  it("says how to return a figure", () => {
    expect(skill).toContain("`plt.show()` attaches every open matplotlib figure");
    expect(skill).toContain("`show(x)` attaches one");
  });

  it("repeats the same numbers in its prose", () => {
    expect(skill).toContain(`at most ${RUN_LIMITS.stdoutKeptBytes / 1024} KiB of stdout`);
    expect(skill).toContain(`a run that writes ${OUTPUT_STOP_BYTES / 1024 / 1024} MiB is stopped`);
    expect(skill).toContain(
      `read-only except \`/tmp\` (${SANDBOX_LIMITS.tmpfsBytes / 1024 / 1024} MiB)`,
    );
    expect(skill).toContain(
      `stop waiting by default (${HOST_LIMITS.clientDefaultTimeoutSeconds} seconds)`,
    );
    expect(skill).toContain(`progress every ${HOST_LIMITS.runProgressIntervalMs / 1000} seconds`);
    expect(skill).toContain(`run over ${HOST_LIMITS.clientDefaultTimeoutSeconds} seconds`);
  });
});

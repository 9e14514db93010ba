import {
  closeSync,
  existsSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { until } from "../../../../test-support/wait.js";
import {
  appLogPath,
  capAppLogWhileRunning,
  lastLogLine,
  openAppLog,
  rotateAppLog,
  APP_LOG_LIMITS,
} from "./app-log.js";

afterEach(removeTempDirs);

const SMALL = { maxBytes: 10, files: 3 };

describe("the app log", () => {
  it("rotates at its cap, keeping `files` files and dropping the oldest", () => {
    const file = appLogPath(tempDir("cm-la-"));
    writeFileSync(file, "short\n");
    expect(rotateAppLog(file, SMALL)).toBe(false);
    for (const round of ["first round\n", "second round\n", "third round\n"]) {
      writeFileSync(file, round);
      expect(rotateAppLog(file, SMALL)).toBe(true);
      expect(existsSync(file)).toBe(false);
    }
    expect(readFileSync(`${file}.1`, "utf8")).toBe("third round\n");
    expect(readFileSync(`${file}.2`, "utf8")).toBe("second round\n");
    expect(existsSync(`${file}.3`)).toBe(false);
  });

  it("is opened for appending, 0600, rotated first when full; a symlink in its place is not followed", () => {
    const dataDir = tempDir("cm-la-");
    const file = appLogPath(dataDir);
    writeFileSync(file, "x".repeat(SMALL.maxBytes));
    const fd = openAppLog(dataDir, SMALL);
    expect(fd).not.toBeNull();
    writeSync(fd!, "fresh\n");
    closeSync(fd!);
    expect(readFileSync(file, "utf8")).toBe("fresh\n");
    expect(readFileSync(`${file}.1`, "utf8")).toBe("x".repeat(SMALL.maxBytes));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const other = tempDir("cm-la-");
    const target = path.join(other, "elsewhere");
    writeFileSync(target, "");
    symlinkSync(target, appLogPath(other));
    expect(openAppLog(other, SMALL)).toBeNull();
    expect(readFileSync(target, "utf8")).toBe("");
  });

  it("gives the last non-empty line, cut to its cap from the start", () => {
    const dataDir = tempDir("cm-la-");
    expect(lastLogLine(dataDir)).toBeNull();
    writeFileSync(appLogPath(dataDir), `${"a".repeat(100_000)}\nfirst\nthe reason\n\n`);
    expect(lastLogLine(dataDir)).toBe("the reason");
    writeFileSync(appLogPath(dataDir), "y".repeat(APP_LOG_LIMITS.lastLineMaxChars + 50));
    const cut = lastLogLine(dataDir);
    expect(cut?.startsWith("…")).toBe(true);
    expect(cut).toHaveLength(APP_LOG_LIMITS.lastLineMaxChars + 1);
  });

  it("while the app runs, rotates its own output by copying, and it keeps writing at the start", async () => {
    const dataDir = tempDir("cm-la-");
    const fd = openAppLog(dataDir, SMALL)!;
    const file = appLogPath(dataDir);
    const stop = capAppLogWhileRunning(dataDir, 10, SMALL, fd);
    try {
      writeSync(fd, "0123456789 past the cap\n");
      await until(() => existsSync(`${file}.1`), "the log to rotate");
      expect(readFileSync(`${file}.1`, "utf8")).toBe("0123456789 past the cap\n");
      writeSync(fd, "after\n");
      expect(readFileSync(file, "utf8")).toBe("after\n");
    } finally {
      stop();
      closeSync(fd);
    }
    // Output that is not the app log (a terminal, a pipe) is left alone.
    expect(capAppLogWhileRunning(dataDir, 10, SMALL, 2)).toBeInstanceOf(Function);
  });
});

// The desktop export's file: written beside the target and renamed over it. Two exports to the
// same file at once (two clicks, two windows) must both finish, not collide on the part file.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";
import { exportAuditToFile, type AuditExporter } from "./audit-export-file.js";

afterAll(removeTempDirs);

/** An exporter that writes its line once let go (so its part file stays open until then). */
function heldExporter(line: string): {
  exporter: AuditExporter;
  started: Promise<void>;
  go: () => void;
} {
  let go: () => void = () => undefined;
  let started: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (go = resolve));
  const startedP = new Promise<void>((resolve) => (started = resolve));
  const exporter: AuditExporter = async (_format, out: Writable) => {
    started();
    await gate;
    out.write(line);
    return 1;
  };
  return { exporter, started: startedP, go };
}

describe("exportAuditToFile", () => {
  it("lets two exports to the same file run at once; the file ends whole, no part file left", async () => {
    const dir = tempDir("codemode-export-");
    const file = path.join(dir, "audit.jsonl");
    const a = heldExporter("first\n");
    const b = heldExporter("second\n");
    const first = exportAuditToFile(a.exporter, file, "jsonl");
    await a.started;
    // The first export's part file is open: the second one opens its own beside it.
    const second = exportAuditToFile(b.exporter, file, "jsonl");
    b.go();
    const secondDone = await second.then(
      (value) => ({ status: "fulfilled", value }),
      (error: unknown) => ({ status: "rejected", reason: String(error) }),
    );
    a.go();
    const results = [await first.then((value) => ({ status: "fulfilled", value })), secondDone];
    expect(results).toEqual([
      { status: "fulfilled", value: 1 },
      { status: "fulfilled", value: 1 },
    ]);
    // The later rename wins: the file holds one export, whole.
    expect(await readFile(file, "utf8")).toBe("first\n");
    expect(await readdir(dir)).toEqual(["audit.jsonl"]);
  });
});

import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { backupPath, loadFile, writeFileAtomic } from "./atomic-file.js";

const dir = () => mkdtempSync(path.join(os.tmpdir(), "codemode-atomic-"));
const parseJson = (text: string) => {
  try {
    return { ok: true as const, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false as const, problem: (error as Error).message };
  }
};

describe("atomic files", () => {
  it("writes the new content, keeps the previous version, leaves no temp file", async () => {
    const d = dir();
    const file = path.join(d, "servers.json");
    await writeFileAtomic(file, "one");
    await writeFileAtomic(file, "two");
    expect(readFileSync(file, "utf8")).toBe("two");
    expect(readFileSync(backupPath(file), "utf8")).toBe("one");
    expect(readdirSync(d).sort()).toEqual(["servers.json", "servers.json.bak"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a corrupt file is kept aside, not overwritten, and reported", async () => {
    const d = dir();
    const file = path.join(d, "settings.json");
    writeFileSync(file, "{ not json");
    const result = await loadFile(file, parseJson, () => new Date("2026-01-02T03:04:05Z"));
    expect(result.state).toBe("invalid");
    if (result.state !== "invalid") return;
    expect(readFileSync(result.keptAs, "utf8")).toBe("{ not json");
    expect(readFileSync(file, "utf8")).toBe("{ not json");
    // Found again at the next start: the copy already kept is reused, not multiplied.
    const again = await loadFile(file, parseJson, () => new Date("2026-01-02T03:04:06Z"));
    expect(again).toEqual(result);
    expect(readdirSync(d).filter((n) => n.includes(".invalid-"))).toHaveLength(1);
  });

  it("a missing file is not an error", async () => {
    expect(await loadFile(path.join(dir(), "nope.json"), parseJson)).toEqual({ state: "missing" });
  });
});

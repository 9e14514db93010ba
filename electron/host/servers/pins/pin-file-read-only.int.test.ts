// A pin file in a directory this process cannot write to (a config mounted read-only, a
// system-wide one): `serve --config` must still open its pins and serve, its saves reported as
// failing, as it did before the pin file had a lock. Taking the lock creates FILE.lock beside
// the file, which such a directory refuses. Real files and a real process: as root (whom
// permission bits do not stop) the store runs as the nobody user.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pinFileBeside, type PinFile } from "./pin-file.js";
import { pinnedForm } from "./tool-hash.js";
import { repoRoot } from "../../../../test-support/processes.js";

const root = repoRoot;
const opener = path.join(root, "test-support", "pin-open.ts");
const NOBODY = 65534;

describe("a pin file in a read-only directory", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-pin-ro-"));
  afterAll(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens, keeps its pinned tools callable and reports the saves it cannot make", () => {
    const file = pinFileBeside(path.join(dir, "servers.json"));
    const form = pinnedForm({ name: "tool", inputSchema: { type: "object" } });
    const at = new Date().toISOString();
    const pins: PinFile = {
      version: 1,
      servers: {
        pinned: {
          pinned: { tool: { hash: form.hash, definition: form.definition, pinnedAt: at } },
          held: {},
        },
      },
    };
    writeFileSync(file, JSON.stringify(pins), { mode: 0o644 });
    const before = readFileSync(file, "utf8");
    chmodSync(dir, 0o555);
    const asRoot = process.getuid?.() === 0;
    const child = spawnSync(process.execPath, ["--import", "tsx", opener, file], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
      ...(asRoot ? { uid: NOBODY, gid: NOBODY, env: { ...process.env, HOME: os.tmpdir() } } : {}),
    });
    expect(child.status, child.stderr).toBe(0);
    const said = JSON.parse(child.stdout.trim().split("\n").pop() ?? "{}") as Record<
      string,
      unknown
    >;
    // Before the fix: { opened: false, error: "Error: EACCES: ... servers.json.pins.json.lock" }.
    expect(said).toMatchObject({ opened: true, problem: null, held: [] });
    // The new server's first pins could not be saved: said, not thrown.
    expect((said.failures as string[]).length).toBeGreaterThan(0);
    expect(readFileSync(file, "utf8")).toBe(before);
  }, 90_000);
});

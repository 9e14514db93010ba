// `codemode workspace` on a real data directory: a file put in comes back byte for byte, one
// over the size limit is refused whole, rm takes a file or the workspace, and the app puts each
// change into its audit log as the CLI's.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditEntries, startHostWithoutDocker } from "../../../../test-support/daemon.js";
import { memoryIO } from "../../../../test-support/cli-io.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { run } from "../run.js";

afterAll(() => removeTempDirs());

describe("codemode workspace", () => {
  const home = tempDir("cm-wscli-");
  const env = { CODEMODE_HOME: home };
  const cli = async (...argv: string[]) => {
    const io = memoryIO(env);
    const code = await run(["workspace", ...argv], io.io);
    return { code, out: io.out(), err: io.err() };
  };

  it("puts, lists, gets and removes files of a client's workspace", async () => {
    const data = randomBytes(300_000);
    const file = path.join(home, "in.bin");
    writeFileSync(file, data);
    expect(await cli("put", "--client", "alice", "w", file, "data/in.bin")).toMatchObject({
      code: 0,
    });
    expect((await cli("list")).out).toMatch(/^alice {2}w {2}1 files {2}293 KiB/);
    expect((await cli("list", "--client", "alice", "w")).out).toMatch(/^data\/in\.bin {2}293 KiB/);
    expect((await cli("list", "--client", "bob")).out).toBe("no workspaces\n");
    const out = path.join(home, "out.bin");
    expect((await cli("get", "--client", "alice", "w", "data/in.bin", out)).code).toBe(0);
    expect(readFileSync(out).equals(data)).toBe(true);
    expect(await cli("rm", "--client", "alice", "w", "data/in.bin")).toMatchObject({ code: 0 });
    expect((await cli("list", "--client", "alice", "w")).out).toBe("");
    expect(await cli("rm", "--client", "alice", "w")).toMatchObject({ code: 0 });
    expect((await cli("list")).out).toBe("no workspaces\n");
  });

  it("get of a file the workspace lacks leaves OUT as it was", async () => {
    const file = path.join(home, "kept.txt");
    writeFileSync(file, "the user's own report");
    await cli("put", "--client", "alice", "g", file);
    const refused = await cli("get", "--client", "alice", "g", "typo.txt", file);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('the workspace "g" has no file "typo.txt"');
    expect(readFileSync(file, "utf8")).toBe("the user's own report");
    expect(readdirSync(home).filter((name) => name.endsWith(".part"))).toEqual([]);
    expect(await cli("rm", "--client", "alice", "g")).toMatchObject({ code: 0 });
  });

  it("refuses a file past the size limit whole, naming the limit", async () => {
    writeFileSync(path.join(home, "settings.json"), JSON.stringify({ workspaceMaxMiB: 1 }));
    const small = path.join(home, "small.txt");
    writeFileSync(small, "kept");
    await cli("put", "--client", "alice", "big", small);
    const large = path.join(home, "large.bin");
    writeFileSync(large, Buffer.alloc(2 * 1024 * 1024));
    const refused = await cli("put", "--client", "alice", "big", large);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('the workspace "big"');
    expect(refused.err).toContain("over its limit of 1 MiB");
    expect((await cli("list", "--client", "alice", "big")).out).toMatch(/^small\.txt {2}4 bytes/);
    expect((await cli("put", "big", small)).err).toContain("needs --client");
  });

  it("the app logs each change as the CLI's", async () => {
    const host = await startHostWithoutDocker(home);
    try {
      await host.auditDurable();
      const edits = auditEntries(home, "workspace_edited").map((e) => [e.action, e.by, e.path]);
      expect(edits).toEqual([
        ["file_added", "cli", "data/in.bin"],
        ["file_removed", "cli", "data/in.bin"],
        ["workspace_removed", "cli", undefined],
        ["file_added", "cli", "kept.txt"],
        ["workspace_removed", "cli", undefined],
        ["file_added", "cli", "small.txt"],
      ]);
    } finally {
      await host.stop();
    }
  });
});

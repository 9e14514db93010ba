import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyClaudeDesktop,
  claudeDesktopConfigPath,
  claudeDesktopServers,
  previewClaudeDesktop,
} from "./claude-desktop.js";

const launch = {
  command: "/usr/bin/node",
  args: ["/opt/codemode/bin/codemode.js", "shim"],
  env: { CODEMODE_HOME: "/d" },
};

describe("Claude Desktop config", () => {
  it("knows the config path on macOS, Windows (incl. the Store build) and Linux", () => {
    const base = {
      home: "/Users/u",
      appData: "C:\\Users\\u\\AppData\\Roaming",
      localAppData: undefined,
    };
    expect(claudeDesktopConfigPath({ ...base, platform: "darwin" })).toBe(
      "/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(claudeDesktopConfigPath({ ...base, platform: "linux", home: "/home/u" })).toBe(
      "/home/u/.config/Claude/claude_desktop_config.json",
    );
    const local = mkdtempSync(path.join(os.tmpdir(), "codemode-localappdata-"));
    const packages = path.join(local, "Packages");
    mkdirSync(path.join(packages, "Claude_pzs8sxrjxfjjc"), { recursive: true });
    expect(claudeDesktopConfigPath({ ...base, platform: "win32", localAppData: local })).toBe(
      path.join(
        packages,
        "Claude_pzs8sxrjxfjjc",
        "LocalCache",
        "Roaming",
        "Claude",
        "claude_desktop_config.json",
      ),
    );
  });

  it("merges the entry, keeps everything else, backs up, and refuses a file changed since the preview", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-claude-"));
    const file = path.join(dir, "claude_desktop_config.json");
    const original = JSON.stringify(
      { theme: "dark", mcpServers: { notes: { command: "notes-mcp" } } },
      null,
      2,
    );
    writeFileSync(file, original);
    const preview = await previewClaudeDesktop(file, launch);
    expect(preview.diff).toContain('+     "codemode": {');
    writeFileSync(file, original + "\n");
    await expect(applyClaudeDesktop(file, launch, preview.before)).rejects.toThrow(
      /changed since the preview/,
    );
    writeFileSync(file, original);
    const applied = await applyClaudeDesktop(file, launch, preview.before);
    const after = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(after).toEqual({
      theme: "dark",
      mcpServers: {
        notes: { command: "notes-mcp" },
        codemode: { command: launch.command, args: launch.args, env: launch.env },
      },
    });
    expect(readFileSync(applied.backup!, "utf8")).toBe(original);
    expect(await claudeDesktopServers(file)).toEqual({ notes: { command: "notes-mcp" } });
  });

  it("keeps one backup per write: the dated copy it reports, and no second `.bak` beside it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-claude-"));
    const file = path.join(dir, "claude_desktop_config.json");
    const original = JSON.stringify({ mcpServers: { notes: { command: "notes-mcp" } } });
    writeFileSync(file, original);
    const first = await applyClaudeDesktop(
      file,
      launch,
      (await previewClaudeDesktop(file, launch)).before,
      () => new Date("2026-01-01T00:00:00Z"),
    );
    expect(readdirSync(dir).sort()).toEqual(
      [path.basename(file), path.basename(first.backup!)].sort(),
    );
    const relaunch = { ...launch, env: { CODEMODE_HOME: "/e" } };
    const second = await applyClaudeDesktop(
      file,
      relaunch,
      (await previewClaudeDesktop(file, relaunch)).before,
      () => new Date("2026-01-02T00:00:00Z"),
    );
    expect(readdirSync(dir).sort()).toEqual(
      [path.basename(file), path.basename(first.backup!), path.basename(second.backup!)].sort(),
    );
    expect(readFileSync(first.backup!, "utf8")).toBe(original);
  });

  it("writes a config kept behind a link where it lives, keeping the link and the mode", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-claude-link-"));
    const dotfiles = path.join(dir, "dotfiles");
    mkdirSync(dotfiles);
    const real = path.join(dotfiles, "claude_desktop_config.json");
    writeFileSync(real, '{"mcpServers": {}}\n', { mode: 0o644 });
    chmodSync(real, 0o644);
    const file = path.join(dir, "claude_desktop_config.json");
    symlinkSync(real, file);
    const preview = await previewClaudeDesktop(file, launch);
    await applyClaudeDesktop(file, launch, preview.before);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toMatchObject({
      mcpServers: { codemode: { command: launch.command } },
    });
    expect(statSync(real).mode & 0o777).toBe(0o644);

    // A link whose file does not exist yet: the file is made where it points.
    const later = path.join(dotfiles, "later.json");
    const dangling = path.join(dir, "dangling.json");
    symlinkSync(later, dangling);
    await applyClaudeDesktop(dangling, launch, "");
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(later, "utf8"))).toMatchObject({
      mcpServers: { codemode: { command: launch.command } },
    });
  });

  it("imports from a file with a byte order mark, and names the file and the fault otherwise", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-claude-import-"));
    const file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(file, '\uFEFF{"mcpServers": {"notes": {"command": "notes-mcp"}}}');
    expect(await claudeDesktopServers(file)).toEqual({ notes: { command: "notes-mcp" } });
    for (const [text, said] of [
      ["null", "does not hold a JSON object"],
      ['{"mcpServers": []}', 'has an "mcpServers" that is not an object'],
      ["{", "is not valid JSON"],
      [
        '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}',
        'names "mcpServers.a" more',
      ],
    ]) {
      writeFileSync(file, text!);
      await expect(claudeDesktopServers(file)).rejects.toThrow(`${file} ${said}`);
    }
    writeFileSync(file, "");
    expect(await claudeDesktopServers(file)).toEqual({});
    // Imported from, a key named twice outside mcpServers is the client's own; applied to, the
    // file would be written back whole, so it is not touched.
    const twiceElsewhere = '{"theme": "a", "theme": "b", "mcpServers": {"n": {"command": "x"}}}';
    writeFileSync(file, twiceElsewhere);
    expect(await claudeDesktopServers(file)).toEqual({ n: { command: "x" } });
    await expect(applyClaudeDesktop(file, launch, twiceElsewhere)).rejects.toThrow(
      'names "theme" more than once',
    );
    expect(readFileSync(file, "utf8")).toBe(twiceElsewhere);
  });

  it("never touches a file that is not JSON", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-claude-"));
    const file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(file, "{ oops");
    await expect(previewClaudeDesktop(file, launch)).rejects.toThrow(/not valid JSON/);
  });
});

import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, readlink, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ClaudeDesktopPreview } from "../../../../shared/api/api-views.js";
import { scanJson } from "../../servers/config/json-scan.js";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { MCP_ENTRY_NAME, mcpServersEntry, type ShimLaunch } from "./client-snippets.js";
import { lineDiff } from "./line-diff.js";

const CONFIG_NAME = "claude_desktop_config.json";

export interface PlatformFacts {
  platform: NodeJS.Platform;
  home: string;
  appData: string | undefined;
  localAppData: string | undefined;
}

export function platformFacts(): PlatformFacts {
  return {
    platform: process.platform,
    home: os.homedir(),
    appData: process.env.APPDATA,
    localAppData: process.env.LOCALAPPDATA,
  };
}

/**
 * Where Claude Desktop keeps its config: macOS and Windows as Anthropic ships it, the
 * Microsoft Store build's virtualised folder on Windows (used when it exists), and the
 * community builds' folder on Linux.
 */
export function claudeDesktopConfigPath(facts: PlatformFacts): string {
  if (facts.platform === "darwin") {
    return path.join(facts.home, "Library", "Application Support", "Claude", CONFIG_NAME);
  }
  if (facts.platform === "win32") {
    const packages = facts.localAppData ? path.join(facts.localAppData, "Packages") : null;
    if (packages && existsSync(packages)) {
      const store = readdirSync(packages).find((name) => name.startsWith("Claude_"));
      if (store) {
        return path.join(packages, store, "LocalCache", "Roaming", "Claude", CONFIG_NAME);
      }
    }
    return path.join(
      facts.appData ?? path.join(facts.home, "AppData", "Roaming"),
      "Claude",
      CONFIG_NAME,
    );
  }
  return path.join(facts.home, ".config", "Claude", CONFIG_NAME);
}

export class ClaudeConfigError extends Error {
  override name = "ClaudeConfigError";
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * The config's object and its mcpServers (undefined when it has none), or a ClaudeConfigError
 * naming the file and what is wrong with it. An empty file is an empty config; a leading byte
 * order mark (Windows editors) is not an error.
 */
function parsedConfig(
  text: string | null,
  file: string,
  /** Which keys named twice stop it: anywhere (a write would drop one), or in mcpServers. */
  twice: "anywhere" | "servers",
): { config: Record<string, unknown>; servers: Record<string, unknown> | undefined } {
  const body = text?.startsWith("\uFEFF") === true ? text.slice(1) : (text ?? "");
  if (body.trim() === "") return { config: {}, servers: undefined };
  const scan = scanJson(body, "mcpServers");
  if (!scan.ok) {
    throw new ClaudeConfigError(
      `${file} is not valid JSON, so Code Mode will not touch it. Fix or remove it, then try again.`,
    );
  }
  const named = scan.duplicates.find((at) => twice === "anywhere" || at[0] === "mcpServers");
  if (named !== undefined) {
    throw new ClaudeConfigError(
      `${file} names ${JSON.stringify(named.join("."))} more than once, so Code Mode will not ` +
        "touch it. Fix it, then try again.",
    );
  }
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ClaudeConfigError(
      `${file} does not hold a JSON object, so Code Mode will not touch it.`,
    );
  }
  const config = parsed as Record<string, unknown>;
  const servers = config.mcpServers;
  if (
    servers !== undefined &&
    (typeof servers !== "object" || servers === null || Array.isArray(servers))
  ) {
    throw new ClaudeConfigError(
      `${file} has an "mcpServers" that is not an object; Code Mode will not touch it.`,
    );
  }
  return { config, servers: servers as Record<string, unknown> | undefined };
}

function merged(before: string | null, launch: ShimLaunch, file: string): string {
  // Written back whole: a key named twice anywhere would lose one of its values.
  const { config, servers } = parsedConfig(before, file, "anywhere");
  // Every other key and server stays as it was: only our own entry is added or replaced.
  const next = {
    ...config,
    mcpServers: {
      ...servers,
      [MCP_ENTRY_NAME]: mcpServersEntry(launch),
    },
  };
  return JSON.stringify(next, null, 2) + "\n";
}

export async function previewClaudeDesktop(
  file: string,
  launch: ShimLaunch,
): Promise<ClaudeDesktopPreview> {
  const before = await readText(file);
  const after = merged(before, launch, file);
  return {
    path: file,
    exists: before !== null,
    before: before ?? "",
    after,
    diff: lineDiff(before ?? "", after),
  };
}

/**
 * Writes the merged config if the file is still what the user saw in the preview (Claude
 * Desktop rewrites it at times), keeps a backup of the old one, and checks the result.
 */
export async function applyClaudeDesktop(
  file: string,
  launch: ShimLaunch,
  expectedBefore: string,
  now: () => Date = () => new Date(),
): Promise<{ path: string; backup: string | null }> {
  const before = await readText(file);
  if ((before ?? "") !== expectedBefore) {
    throw new ClaudeConfigError(
      `${file} changed since the preview (Claude Desktop may have rewritten it). Look at the new preview and try again.`,
    );
  }
  const after = merged(before, launch, file);
  await mkdir(path.dirname(file), { recursive: true });
  let backup: string | null = null;
  if (before !== null) {
    backup = `${file}.codemode-backup-${now().toISOString().replace(/[:.]/g, "-")}`;
    await writeFileAtomic(backup, before, undefined, { keepBak: false });
  }
  // A config kept elsewhere (a link into a dotfiles folder) is written where it lives, with the
  // mode it has: a rename over the link would turn it into a copy, and the two would drift.
  const target = await writtenPath(file);
  const mode = await stat(target).then(
    (found) => found.mode & 0o777,
    () => 0o600,
  );
  // The dated backup above is the one backup of this write: no `.bak` beside it as well.
  await writeFileAtomic(target, after, mode, { keepBak: false });
  const check = JSON.parse((await readText(file)) ?? "{}") as {
    mcpServers?: Record<string, unknown>;
  };
  if (!check.mcpServers || !(MCP_ENTRY_NAME in check.mcpServers)) {
    throw new ClaudeConfigError(
      `${file} did not keep the Code Mode entry; try again with Claude Desktop closed.`,
    );
  }
  return { path: file, backup };
}

/**
 * Where a write to `file` lands: the file a link leads to (one whose target does not exist yet
 * too, made where the link points), else `file` itself.
 */
async function writtenPath(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    const link = await readlink(file).catch(() => null);
    return link === null ? file : path.resolve(path.dirname(file), link);
  }
}

/** Servers already configured in Claude Desktop, to import into Code Mode. */
export async function claudeDesktopServers(file: string): Promise<Record<string, unknown>> {
  const { servers } = parsedConfig(await readText(file), file, "servers");
  const result: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(servers ?? {})) {
    // Code Mode's own entry would wrap Code Mode in itself.
    if (name !== MCP_ENTRY_NAME) result[name] = entry;
  }
  return result;
}

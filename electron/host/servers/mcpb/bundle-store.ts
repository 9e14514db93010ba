// MCP Bundles in the data directory: each added bundle is unpacked into a folder of its own
// under `bundles/`, and the server entry points into it. A folder no saved server refers to
// any more (the server was removed, or the whole config replaced) is deleted by `prune`.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BundleView } from "../../../../shared/api/api-views.js";
import { API_LIMITS, MCPB_LIMITS } from "../../../../shared/limits.js";
import type { CatalogValues } from "../../../../shared/server-catalog/catalog-schema.js";
import type {
  BuiltEntry,
  SettingProblem,
} from "../../../../shared/server-catalog/server-catalog.js";
import type { ServersConfig } from "../../core/ports/server-config-types.js";
import { buildBundleEntry } from "./mcpb-entry.js";
import { readManifest, type McpbManifest } from "./mcpb-manifest.js";
import { runtimeProblem } from "./mcpb-runtime.js";
import { BundleError, ZipArchive } from "./zip-reader.js";

/** The folder under the data directory that holds unpacked bundles. */
export const BUNDLES_DIR = "bundles";
const FOLDER_NAME = /^[0-9a-f]{16}$/;

export interface OpenedBundle {
  archive: ZipArchive;
  manifest: McpbManifest;
}

/** Opens a bundle's bytes and reads its manifest; BundleError says what is wrong with it. */
export function openBundle(
  bytes: Buffer,
  maxBytes: number = MCPB_LIMITS.bundleMaxBytes,
): OpenedBundle {
  if (bytes.length > maxBytes) {
    throw new BundleError(`the bundle is ${bytes.length} bytes; at most ${maxBytes} are accepted`);
  }
  const archive = ZipArchive.open(bytes, MCPB_LIMITS);
  return { archive, manifest: readManifest(archive) };
}

/** What the UI shows before adding: who the bundle is and the settings it asks for. */
export function bundleView(manifest: McpbManifest): BundleView {
  return {
    name: manifest.name,
    displayName: manifest.display_name ?? manifest.name,
    version: manifest.version,
    description: manifest.description ?? "",
    serverType: manifest.server.type,
    settings: Object.entries(manifest.user_config ?? {}).map(([key, option]) => ({
      key,
      type: option.type,
      title: option.title,
      description: option.description ?? "",
      required: option.required === true,
      sensitive: option.sensitive === true,
      multiple: option.multiple === true,
      default:
        option.default === undefined
          ? []
          : Array.isArray(option.default)
            ? option.default
            : [String(option.default)],
    })),
  };
}

/** A name for the server from the bundle's own name: what the config accepts. */
export function suggestedBundleServerName(manifest: McpbManifest): string {
  let name = "";
  for (const char of manifest.name.toLowerCase()) {
    name += /[a-z0-9_-]/.test(char) ? char : "-";
  }
  // The suggestion must be a name the API accepts for a server.
  return name.slice(0, API_LIMITS.serverNameMaxChars) || "bundle";
}

export interface InstallFacts {
  dataDir: string;
  platform?: NodeJS.Platform;
  home?: string;
  /** The PATH the wrapped servers are started with. */
  pathEnv: string;
  /** Folders being installed: the new folder is added before it is written (see prune). */
  pending?: Set<string>;
}

export type InstallResult =
  | { ok: true; entry: BuiltEntry; dir: string; manifest: McpbManifest }
  | { ok: false; problems: SettingProblem[] };

/**
 * Checks the values and the machine, then unpacks the bundle into a new folder under
 * `bundles/`. Nothing is written unless every check passed. The caller saves the entry and
 * calls `discard(dir)` if that fails.
 */
export async function installBundle(
  opened: OpenedBundle,
  values: CatalogValues,
  facts: InstallFacts,
): Promise<InstallResult> {
  const platform = facts.platform ?? process.platform;
  const root = path.join(facts.dataDir, BUNDLES_DIR);
  const dir = path.join(root, randomBytes(8).toString("hex"));
  const built = buildBundleEntry(opened.manifest, values, {
    dir,
    home: facts.home ?? os.homedir(),
    platform,
  });
  if (!built.ok) return built;
  const files = new Set(opened.archive.entries.filter((e) => !e.directory).map((e) => e.name));
  const problem = runtimeProblem(opened.manifest, built.entry, {
    platform,
    pathEnv: facts.pathEnv,
    bundleHasFile: (name) => files.has(name),
    dir,
  });
  if (problem !== null) throw new BundleError(`Code Mode cannot run this bundle here: ${problem}`);
  facts.pending?.add(dir);
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    await opened.archive.extractTo(dir);
    // A bundled binary packed on a system without Unix modes must still start.
    if (
      opened.manifest.server.type === "binary" &&
      built.entry.command.startsWith(dir + path.sep)
    ) {
      await chmod(built.entry.command, 0o755);
    }
  } catch (error) {
    // Nothing will save a server naming this folder: prune may take it, and its part goes now.
    facts.pending?.delete(dir);
    await discardBundle(dir);
    throw error;
  }
  return { ok: true, entry: built.entry, dir, manifest: opened.manifest };
}

export async function discardBundle(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Whether any value of the entry points into `dir`. */
function refersTo(texts: readonly string[], dir: string): boolean {
  return texts.some(
    (text) => text === dir || text.includes(dir + path.sep) || text.includes(`${dir}/`),
  );
}

/**
 * Deletes the bundle folders no server of `config` refers to, except those in `keep` (being
 * installed right now). Only our own folder names are touched. Returns the folders deleted.
 */
export async function pruneBundles(
  dataDir: string,
  config: ServersConfig,
  keep: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const root = path.join(dataDir, BUNDLES_DIR);
  const names = await readdir(root).catch(() => [] as string[]);
  const texts = [...config.servers.values()].flatMap((e) => [
    e.command,
    ...e.args,
    ...Object.values(e.env),
  ]);
  const removed: string[] = [];
  for (const name of names) {
    const stem = name.endsWith(".partial") ? name.slice(0, -".partial".length) : name;
    if (!FOLDER_NAME.test(stem)) continue;
    const dir = path.join(root, name);
    if (keep.has(path.join(root, stem)) || refersTo(texts, dir)) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

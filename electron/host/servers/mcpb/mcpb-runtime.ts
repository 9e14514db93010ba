// Can this machine run the bundle's server? Asked before anything is unpacked, so a bundle
// that could only fail at start (a macOS binary on Linux, a Python server without Python) is
// refused with the reason instead of saved as a server that never starts.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import type { BuiltEntry } from "../../../../shared/server-catalog/server-catalog.js";
import type { McpbManifest } from "./mcpb-manifest.js";

const PLATFORM_NAMES: Record<string, string> = {
  darwin: "macOS",
  win32: "Windows",
  linux: "Linux",
};

/** What the check looks at: the platform, the PATH servers get, and the bundle's files. */
export interface RuntimeFacts {
  platform: NodeJS.Platform;
  /** The PATH the wrapped servers are started with. */
  pathEnv: string;
  /** Whether a path inside the bundle (relative, "/"-separated) is a file in it. */
  bundleHasFile: (relative: string) => boolean;
  /** The bundle's folder once unpacked (commands under it are looked up in the bundle). */
  dir: string;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The full path `command` runs as on `pathEnv`, or null when it is not found. */
export function findOnPath(
  command: string,
  pathEnv: string,
  platform: NodeJS.Platform,
): string | null {
  if (path.isAbsolute(command)) return isExecutableFile(command) ? command : null;
  const suffixes = platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir === "") continue;
    for (const suffix of suffixes) {
      const candidate = path.join(dir, command + suffix);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

const RUNTIMES: Record<McpbManifest["server"]["type"], { label: string; any: string[] } | null> = {
  node: { label: "Node.js", any: ["node"] },
  python: { label: "Python", any: ["uv", "python3", "python"] },
  uv: { label: "uv", any: ["uv"] },
  binary: null,
};

/** Why this machine cannot run the bundle's server, or null when it can. */
export function runtimeProblem(
  manifest: McpbManifest,
  entry: BuiltEntry,
  facts: RuntimeFacts,
): string | null {
  const platforms = manifest.compatibility?.platforms;
  if (platforms && !platforms.includes(facts.platform as (typeof platforms)[number])) {
    const names = platforms.map((p) => PLATFORM_NAMES[p] ?? p).join(", ");
    return `this bundle runs on ${names || "no platform"}; this computer runs ${PLATFORM_NAMES[facts.platform] ?? facts.platform}`;
  }
  const type = manifest.server.type;
  const runtime = RUNTIMES[type];
  if (runtime && !runtime.any.some((cmd) => findOnPath(cmd, facts.pathEnv, facts.platform))) {
    return `this is a ${runtime.label} bundle, and none of ${runtime.any.join(", ")} is on the PATH servers get (${facts.pathEnv}); install ${runtime.label} and try again`;
  }
  const relative = path.relative(facts.dir, entry.command);
  const inBundle = !relative.startsWith("..") && !path.isAbsolute(relative);
  if (inBundle) {
    const name = relative.split(path.sep).join("/");
    if (!facts.bundleHasFile(name)) {
      return `the bundle starts ${JSON.stringify(name)}, which is not in the bundle`;
    }
    return null;
  }
  if (!findOnPath(entry.command, facts.pathEnv, facts.platform)) {
    return `the bundle starts ${JSON.stringify(entry.command)}, which was not found on the PATH servers get (${facts.pathEnv})`;
  }
  return null;
}

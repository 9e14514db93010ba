import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The data directory: CODEMODE_HOME when set (tests always set it to a temporary one),
 * else the platform's usual place for an app's data.
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const override = env.CODEMODE_HOME;
  if (override) return path.resolve(override);
  const home = os.homedir();
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "Code Mode");
  if (platform === "win32") {
    return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "Code Mode");
  }
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, ".config"), "codemode");
}

/**
 * The package root (where package.json and sandbox-image/ live). Found by walking up from
 * this module, because it runs from the sources under vitest and from dist/ when built.
 */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      const parsed = JSON.parse(readFileSync(pkg, "utf8")) as { name?: string };
      if (parsed.name === "codemode") return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the codemode package root above ${from}`);
    dir = parent;
  }
}

export function sandboxImageDir(): string {
  return path.join(packageRoot(), "sandbox-image");
}

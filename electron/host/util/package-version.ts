import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "./paths.js";

let cached: string | null = null;

/** The version in package.json: what Code Mode calls itself to clients and servers. */
export function packageVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  return cached;
}

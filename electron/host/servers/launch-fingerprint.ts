// What a server's pins remember of the entry that starts it: a hash of its command, arguments
// and environment. Pins left under a name the config no longer has (the file edited while
// nothing ran) then find the server that was renamed, rather than that server's tools being
// pinned afresh, unreviewed, under its new name.

import { pairRenames } from "./pins/pin-renames.js";
import type { ServerEntry, ServersConfig } from "../core/ports/server-config-types.js";
import { sha256Hex } from "../util/sha256-hex.js";

const fingerprints = new WeakMap<ServerEntry, string>();

/**
 * sha256 of the command, the arguments and the environment. A secret env value counts by its
 * name only: the pin file must not carry even a hash of a secret.
 */
export function launchFingerprint(entry: ServerEntry): string {
  const known = fingerprints.get(entry);
  if (known !== undefined) return known;
  const env = Object.keys(entry.env)
    .sort()
    .map((key) => [key, entry.secretEnv.includes(key) ? null : (entry.env[key] ?? null)]);
  const hash = sha256Hex(JSON.stringify([entry.command, entry.args, env]));
  fingerprints.set(entry, hash);
  return hash;
}

/** Each configured server's launch fingerprint, by name. */
export function configLaunches(config: ServersConfig): Map<string, string> {
  return new Map([...config.servers].map(([name, entry]) => [name, launchFingerprint(entry)]));
}

/**
 * The servers a whole new config renamed (old name -> new name), where nothing says so: the
 * file saved as a whole (pairRenames over the servers gone and the ones new).
 */
export function renamedServers(
  before: ReadonlyMap<string, ServerEntry>,
  after: ReadonlyMap<string, ServerEntry>,
): Map<string, string> {
  const side = (
    from: ReadonlyMap<string, ServerEntry>,
    without: ReadonlyMap<string, ServerEntry>,
  ) =>
    [...from]
      .filter(([name]) => !without.has(name))
      .map(([name, entry]) => ({ name, launch: launchFingerprint(entry) }));
  return pairRenames(side(before, after), side(after, before));
}

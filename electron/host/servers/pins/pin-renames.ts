// Which servers gone from a config became which new ones, when nothing says so (the whole file
// saved, or edited while nothing ran): a renamed server keeps its pins and its held changes, so
// a change held under the old name is not pinned unreviewed under the new one.

import type { PinFile, ServerPins } from "./pin-file.js";

/** A server and the fingerprint of the entry that starts it (launch-fingerprint.ts). */
export interface ServerLaunch {
  name: string;
  /** Unknown for pins written before fingerprints were kept. */
  launch: string | undefined;
}

/**
 * Old name -> new name. First, a gone server and a new one that start the same way, when
 * neither has another such match; then, when exactly one gone and one new server are left,
 * those two (a rename that also changed the command, arguments or environment: its tools are
 * compared with its pins, and whatever differs is held). Anything else is no rename.
 */
export function pairRenames(
  gone: readonly ServerLaunch[],
  added: readonly ServerLaunch[],
): Map<string, string> {
  const pairs = new Map<string, string>();
  const count = (list: readonly ServerLaunch[], launch: string) =>
    list.filter((server) => server.launch === launch).length;
  for (const next of added) {
    if (next.launch === undefined) continue;
    if (count(added, next.launch) !== 1 || count(gone, next.launch) !== 1) continue;
    const before = gone.find((server) => server.launch === next.launch);
    if (before !== undefined) pairs.set(before.name, next.name);
  }
  const paired = new Set(pairs.values());
  const goneLeft = gone.filter((server) => !pairs.has(server.name));
  const addedLeft = added.filter((server) => !paired.has(server.name));
  const [onlyGone] = goneLeft;
  const [onlyAdded] = addedLeft;
  if (goneLeft.length === 1 && addedLeft.length === 1 && onlyGone && onlyAdded)
    pairs.set(onlyGone.name, onlyAdded.name);
  return pairs;
}

/** One server's pins moved to another name. */
export interface PinsMove {
  from: string;
  to: string;
  pins: ServerPins;
}

/**
 * The pin file with each `from` server's pins (pinned and held, rejected marks included) and
 * launch fingerprint under its `to` name. A `from` with no pins moves nothing.
 */
export function movePins(
  file: PinFile,
  renames: ReadonlyMap<string, string>,
): { file: PinFile; moves: PinsMove[] } {
  const servers = { ...file.servers };
  const launches = { ...file.launches };
  const moves: PinsMove[] = [];
  for (const [from, to] of renames) {
    const pins = file.servers[from];
    if (pins === undefined || from === to) continue;
    delete servers[from];
    servers[to] = pins;
    const launch = file.launches?.[from];
    delete launches[from];
    if (launch === undefined) delete launches[to];
    else launches[to] = launch;
    moves.push({ from, to, pins });
  }
  if (moves.length === 0) return { file, moves };
  return { file: { ...file, servers, launches }, moves };
}

/**
 * The renames the pin file shows against the servers configured now (name -> launch
 * fingerprint): pins of servers no longer configured, paired with configured servers that have
 * none (pairRenames).
 */
export function renamesSince(
  file: PinFile,
  launches: ReadonlyMap<string, string>,
): Map<string, string> {
  const gone = Object.keys(file.servers)
    .filter((name) => !launches.has(name))
    .map((name) => ({ name, launch: file.launches?.[name] }));
  if (gone.length === 0) return new Map();
  const added = [...launches]
    .filter(([name]) => file.servers[name] === undefined)
    .map(([name, launch]) => ({ name, launch }));
  return pairRenames(gone, added);
}

/**
 * The pin file with these servers' launch fingerprints set, others' kept (the same object when
 * nothing changes).
 */
export function withLaunches(file: PinFile, launches: ReadonlyMap<string, string>): PinFile {
  const changed = [...launches].filter(([server, launch]) => file.launches?.[server] !== launch);
  if (changed.length === 0) return file;
  return { ...file, launches: { ...file.launches, ...Object.fromEntries(changed) } };
}

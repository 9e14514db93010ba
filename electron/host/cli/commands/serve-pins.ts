// Pinned tool definitions for `serve --config FILE`: the pins live beside that file
// (FILE.pins.json). A held change is said on stderr with what changed and the exact command
// that accepts it; `codemode servers accept --config FILE` edits the pin file, which serve
// watches, so the tools become callable without a restart.
import path from "node:path";
import type { ServerTools } from "../../core/catalog/catalog-types.js";
import { pinFileBeside } from "../../servers/pins/pin-file.js";
import type { HeldChange } from "../../servers/pins/pin-state.js";
import { shortHash } from "../../servers/pins/tool-hash.js";
import { ToolPins } from "../../servers/pins/tool-pins.js";
import { configLaunches } from "../../servers/launch-fingerprint.js";
import type { ServerSet } from "../../servers/server-set.js";
import { writeLine, type CliIO } from "../cli-io.js";
import { terminalText } from "../../util/terminal-text.js";

/** `serve` names at most this many held tools on stderr at once, then a count. */
export const SERVE_HELD_SHOWN_MAX = 20;

/** Quotes a word for a POSIX shell, so the printed command can be pasted as it is. */
export function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The lines serve prints for definitions held on one listing of `server`. */
export function heldMessage(
  configFile: string,
  server: string,
  changes: readonly HeldChange[],
): string {
  const shown = changes.slice(0, SERVE_HELD_SHOWN_MAX).map((c) => {
    const hashes =
      c.kind === "changed" ? ` (${shortHash(c.pinnedHash)} -> ${shortHash(c.heldHash)})` : "";
    return `  ${terminalText(c.tool)}: ${c.kind}${hashes}`;
  });
  const more = changes.length - shown.length;
  if (more > 0) shown.push(`  ... and ${more} more`);
  const args = `--config ${shellWord(configFile)} ${shellWord(server)}`;
  const accept = `codemode servers accept ${args}`;
  const reject = `codemode servers reject ${args}`;
  return (
    `codemode serve: server ${terminalText(server)}: ${changes.length} tool definition(s) ` +
    `differ from the ones pinned in ${terminalText(pinFileBeside(configFile))} and are held ` +
    `(not callable) until accepted:\n${shown.join("\n")}\n` +
    `  see them: codemode servers pins --config ${shellWord(configFile)}\n` +
    `  accept them: ${terminalText(accept)}\n` +
    `  or keep them out: ${terminalText(reject)}`
  );
}

export interface ServePins {
  /** The catalog's input with held tools marked. */
  serverTools: () => ServerTools[];
  close: () => Promise<void>;
}

export async function openServePins(
  configFile: string,
  servers: ServerSet,
  io: CliIO,
  rebuild: () => void,
): Promise<ServePins> {
  const absolute = path.resolve(configFile);
  const { pins, problem } = await ToolPins.open(pinFileBeside(absolute));
  if (problem !== null) writeLine(io.stderr, `codemode serve: ${problem}`);
  pins.listen({
    firstPinned: (server, count) =>
      writeLine(
        io.stderr,
        `codemode serve: server ${terminalText(server)}: ${count} tool definition(s) pinned in ${terminalText(pins.file)}`,
      ),
    held: (server, changes) => writeLine(io.stderr, heldMessage(absolute, server, changes)),
    // Held at an earlier start and still not accepted: said again, so it is not forgotten.
    stillHeld: (server, changes) => writeLine(io.stderr, heldMessage(absolute, server, changes)),
    reviewed: (server, changes, decision) =>
      writeLine(
        io.stderr,
        `codemode serve: server ${terminalText(server)}: ${changes.length} held change(s) ${decision}ed`,
      ),
    changed: rebuild,
    full: (server) =>
      writeLine(
        io.stderr,
        `codemode serve: server ${terminalText(server)}: the pin file ${terminalText(pins.file)} is full; its new tool definitions stay held`,
      ),
    saveFailed: (error) =>
      writeLine(io.stderr, `codemode serve: the pin file could not be saved: ${String(error)}`),
    configured: () => servers.serverTools().map((entry) => entry.server),
    moved: (from, to, moved) =>
      writeLine(
        io.stderr,
        `codemode serve: server ${terminalText(from)} is now ${terminalText(to)}: its ${Object.keys(moved.pinned).length} pinned and ${Object.keys(moved.held).length} held tool definition(s) moved with it`,
      ),
    notesUnreadable: (count) =>
      writeLine(io.stderr, `codemode serve: ${count} note(s) of CLI reviews could not be read`),
  });
  // A server renamed in the file since the last serve keeps its pins and held changes.
  pins.followRenames(configLaunches(servers.config));
  pins.watch();
  return {
    serverTools: () =>
      servers.serverTools().map((entry) => ({
        ...entry,
        held: pins.observe(entry.server, servers.get(entry.server)?.forms ?? null),
        pinned: pins.pinnedFor(entry.server),
      })),
    close: () => pins.close(),
  };
}

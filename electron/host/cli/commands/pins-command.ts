// `codemode servers pins`: the pinned tool definitions of the app's servers (the data
// directory's pins.json) or of a `serve --config FILE` (FILE.pins.json), with the hash of each
// held definition that `accept` and `reject` (review-command.ts) take. A running app or serve
// watches its pin file and takes a review within PIN_WATCH_INTERVAL_MS; its audit records
// the review (as the CLI's) from the note the command leaves beside the pin file.
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../../util/paths.js";
import { loadPinFile, pinFileBeside, type PinFile } from "../../servers/pins/pin-file.js";
import { heldKind } from "../../servers/pins/pin-state.js";
import { reviewHash } from "../../servers/pins/seen-definitions.js";
import { shortHash } from "../../servers/pins/tool-hash.js";
import { PINS_FILE } from "../../servers/pins/tool-pins.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { terminalText } from "../../util/terminal-text.js";

export function pinFileOf(config: string | undefined, io: CliIO): string {
  return config === undefined
    ? path.join(dataDir(io.env), PINS_FILE)
    : pinFileBeside(path.resolve(config));
}

export async function readPins(file: string): Promise<PinFile> {
  const loaded = await loadPinFile(file);
  if (!loaded.ok) throw new UserError(loaded.problem);
  return loaded.pins;
}

/**
 * One line per pinned or held tool: server, tool, short hash, and its held state with the held
 * definition's hash as --hash takes it.
 */
export async function pinsCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { config: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UserError(`unexpected ${JSON.stringify(positionals[0])}`);
  const file = pinFileOf(values.config, io);
  const pins = await readPins(file);
  const lines: string[] = [];
  for (const server of Object.keys(pins.servers).sort()) {
    const entry = pins.servers[server];
    if (entry === undefined) continue;
    const tools = new Set([...Object.keys(entry.pinned), ...Object.keys(entry.held)]);
    for (const tool of [...tools].sort()) {
      const held = entry.held[tool];
      const pinned = shortHash(entry.pinned[tool]?.hash ?? null);
      const state =
        held === undefined
          ? "pinned"
          : `held: ${heldKind(entry, tool, held)} -> ${reviewHash(held.hash)}${held.rejected ? " (rejected)" : ""}`;
      // Names are the server's (a tool's) own: escaped, so none can start a forged line.
      lines.push(`${terminalText(server)}  ${terminalText(tool)}  ${pinned}  ${state}`);
    }
  }
  if (lines.length === 0) lines.push(`no pins yet in ${file}`);
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

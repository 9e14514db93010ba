// `codemode servers pins` and `codemode servers accept`: the pinned tool definitions of the
// app's servers (the data directory's pins.json) or of a `serve --config FILE` (FILE.pins.json),
// and accepting held changes from the command line. A running app or serve watches its pin
// file and takes the change within PIN_LIMITS.watchIntervalMs (its audit records it as the CLI's).
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../../paths.js";
import { loadPinFile, pinFileBeside, savePinFile, type PinFile } from "../../pins/pin-file.js";
import { heldKind, review } from "../../pins/pin-state.js";
import { shortHash } from "../../pins/tool-hash.js";
import { PINS_FILE } from "../../pins/tool-pins.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { terminalText } from "../terminal-text.js";

function pinFileOf(config: string | undefined, io: CliIO): string {
  return config === undefined
    ? path.join(dataDir(io.env), PINS_FILE)
    : pinFileBeside(path.resolve(config));
}

async function readPins(file: string): Promise<PinFile> {
  const loaded = await loadPinFile(file);
  if (!loaded.ok) throw new UserError(loaded.problem);
  return loaded.pins;
}

/** One line per pinned or held tool: server, tool, short hash, and its held state. */
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
          : `held: ${heldKind(entry, tool, held)} -> ${shortHash(held.hash)}${held.rejected ? " (rejected)" : ""}`;
      // Names are the server's (a tool's) own: escaped, so none can start a forged line.
      lines.push(`${terminalText(server)}  ${terminalText(tool)}  ${pinned}  ${state}`);
    }
  }
  if (lines.length === 0) lines.push(`no pins yet in ${file}`);
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

/** Accepts the held changes of server NAME (one TOOL, or all of them) and saves the pin file. */
export async function acceptCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { config: { type: "string" } },
    allowPositionals: true,
  });
  const [name, tool, ...extra] = positionals;
  if (name === undefined) throw new UserError("servers accept takes the server NAME (and a TOOL)");
  if (extra.length > 0) throw new UserError(`unexpected ${JSON.stringify(extra[0])}`);
  const file = pinFileOf(values.config, io);
  const pins = await readPins(file);
  const entry = pins.servers[name];
  if (entry === undefined)
    throw new UserError(`no pins for a server named ${JSON.stringify(name)} in ${file}`);
  const done = review(entry, tool ?? null, "accept", new Date().toISOString());
  if (done.reviewed.length === 0) {
    const what = tool === undefined ? "no tool" : `no tool ${JSON.stringify(tool)}`;
    throw new UserError(`server ${JSON.stringify(name)} has ${what} held for review`);
  }
  await savePinFile(file, { ...pins, servers: { ...pins.servers, [name]: done.pins } });
  const list = done.reviewed.map((c) => `  ${terminalText(c.tool)}: ${c.kind}`).join("\n");
  writeLine(
    io.stdout,
    `Accepted ${done.reviewed.length} held change(s) of ${terminalText(name)}:\n${list}\n` +
      "A running Code Mode (or serve) takes them within a second.",
  );
  return 0;
}

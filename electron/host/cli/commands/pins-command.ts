// `codemode servers pins`, `accept` and `reject`: the pinned tool definitions of the app's
// servers (the data directory's pins.json) or of a `serve --config FILE` (FILE.pins.json), and
// reviewing held changes from the command line. A running app or serve watches its pin file
// and takes the change within PIN_LIMITS.watchIntervalMs; its audit records the review (as
// the CLI's) from the note the command leaves beside the pin file (review-notes.ts).
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../../paths.js";
import { loadPinFile, pinFileBeside, savePinFile, type PinFile } from "../../pins/pin-file.js";
import { withPinLock } from "../../pins/pin-lock.js";
import { heldKind, review, type Decision } from "../../pins/pin-state.js";
import { noteReviews } from "../../pins/review-notes.js";
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

/**
 * Accepts or rejects the held changes of server NAME (one TOOL, or all of them): the pin file
 * is read, changed and written under its lock, and the review noted for the audit (a running
 * host records it at once, else the next start does).
 */
export async function reviewCommand(
  decision: Decision,
  argv: string[],
  io: CliIO,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { config: { type: "string" } },
    allowPositionals: true,
  });
  const verb = decision === "accept" ? "accept" : "reject";
  const [name, tool, ...extra] = positionals;
  if (name === undefined) throw new UserError(`servers ${verb} takes the server NAME (and a TOOL)`);
  if (extra.length > 0) throw new UserError(`unexpected ${JSON.stringify(extra[0])}`);
  const file = pinFileOf(values.config, io);
  const reviewed = await withPinLock(file, async () => {
    const pins = await readPins(file);
    const entry = pins.servers[name];
    if (entry === undefined)
      throw new UserError(`no pins for a server named ${JSON.stringify(name)} in ${file}`);
    const at = new Date().toISOString();
    const done = review(entry, tool ?? null, decision, at);
    // Rejecting what is already rejected changes nothing: said as "nothing held", like the UI.
    const changes = done.reviewed.filter(
      (c) => decision === "accept" || entry.held[c.tool]?.rejected !== true,
    );
    if (changes.length === 0) {
      const what = tool === undefined ? "no tool" : `no tool ${JSON.stringify(tool)}`;
      const state = decision === "accept" ? "held for review" : "held and not yet rejected";
      throw new UserError(`server ${JSON.stringify(name)} has ${what} ${state}`);
    }
    await savePinFile(file, { ...pins, servers: { ...pins.servers, [name]: done.pins } });
    await noteReviews(file, name, changes, decision, at);
    return changes;
  });
  const list = reviewed.map((c) => `  ${terminalText(c.tool)}: ${c.kind}`).join("\n");
  const outcome =
    decision === "accept"
      ? "A running Code Mode (or serve) takes them within a second."
      : "They stay out of the catalog until the server changes them again.";
  writeLine(
    io.stdout,
    `${decision === "accept" ? "Accepted" : "Rejected"} ${reviewed.length} held change(s) of ${terminalText(name)}:\n${list}\n` +
      `${outcome} The audit log records it (when Code Mode next starts, if it is not running).`,
  );
  return 0;
}

export const acceptCommand = (argv: string[], io: CliIO): Promise<number> =>
  reviewCommand("accept", argv, io);
export const rejectCommand = (argv: string[], io: CliIO): Promise<number> =>
  reviewCommand("reject", argv, io);

// `codemode servers accept|reject NAME [TOOL]`: reviewing held changes from the command line.
// What is reviewed is what the person was shown: the definitions whose hashes they give
// (`--hash`, as `codemode servers pins` prints them), or the ones this command shows and asks
// about on a terminal. The pin file is read again under its lock, and a definition the server
// changed in between is refused, nothing reviewed. With neither (no terminal to ask on), only
// --yes reviews what is held now. A rejected change stays rejected: accept passes it over
// unless --include-rejected is given, whoever runs the command.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { HeldChangeKind } from "../../../../shared/api/api-views.js";
import { PIN_LIMITS } from "../../../../shared/limits.js";
import { savePinFile, type PinFile, type ServerPins } from "../../servers/pins/pin-file.js";
import { withPinLock } from "../../servers/pins/pin-lock.js";
import { heldKind, type Decision } from "../../servers/pins/pin-state.js";
import { noteReviews } from "../../servers/pins/review-notes.js";
import {
  REVIEW_HASH_CHARS,
  reviewHash,
  reviewSeen,
  staleMessage,
  type StaleDefinition,
} from "../../servers/pins/seen-definitions.js";
import { shortHash } from "../../servers/pins/tool-hash.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { terminalText } from "../../util/terminal-text.js";
import { pinFileOf, readPins } from "./pins-command.js";

/** A held definition shown before asking is cut here (the Servers page shows it whole). */
const SHOWN_DEFINITION_MAX_CHARS = 4096;

/** A held change this command would review. */
interface Target {
  tool: string;
  hash: string | null;
  kind: HeldChangeKind;
}

interface Picked {
  entry: ServerPins;
  targets: Target[];
  /** Rejected changes accept passes over (no --include-rejected). */
  rejected: Target[];
}

/** What the person was shown: hashes they give, the list this command asked about, or --yes. */
type Shown =
  | { kind: "hashes"; hashes: string[] }
  | { kind: "asked"; targets: Target[] }
  | { kind: "held now" };

interface Request {
  file: string;
  /** The --config given, if any (a hint names it again). */
  config: string | undefined;
  name: string;
  tool: string | undefined;
  decision: Decision;
  includeRejected: boolean;
}

const quote = (text: string): string => JSON.stringify(text);

/** The held changes of the request's server it applies to, read from `pins`. */
function pick(pins: PinFile, request: Request): Picked {
  const { name, tool, decision, includeRejected } = request;
  const entry = Object.hasOwn(pins.servers, name) ? pins.servers[name] : undefined;
  if (entry === undefined)
    throw new UserError(`no pins for a server named ${quote(name)} in ${request.file}`);
  const targets: Target[] = [];
  const rejected: Target[] = [];
  for (const tool of Object.keys(entry.held).sort()) {
    const held = entry.held[tool];
    if (held === undefined || (request.tool !== undefined && tool !== request.tool)) continue;
    const target = { tool, hash: held.hash, kind: heldKind(entry, tool, held) };
    // Rejecting what is already rejected changes nothing.
    if (held.rejected && decision === "reject") continue;
    if (held.rejected && !includeRejected) rejected.push(target);
    else targets.push(target);
  }
  if (targets.length === 0) {
    if (rejected.length > 0) throw new UserError(rejectedMessage(name, rejected));
    const what = tool === undefined ? "no tool" : `no tool ${quote(tool)}`;
    const state = decision === "accept" ? "held for review" : "held and not yet rejected";
    throw new UserError(`server ${quote(name)} has ${what} ${state}`);
  }
  return { entry, targets, rejected };
}

function rejectedMessage(server: string, rejected: readonly Target[]): string {
  const what =
    rejected.length === 1
      ? `the change of tool ${quote(rejected[0]?.tool ?? "")} of server ${quote(server)} was rejected`
      : `the ${rejected.length} held changes of server ${quote(server)} were rejected`;
  return (
    `Nothing was accepted: ${what}, and a rejected change stays rejected until the server ` +
    "changes it again. To accept it all the same, add --include-rejected."
  );
}

/** Whether a hash given with --hash names `hash` (a removal is `-`). */
function sameHash(given: string, hash: string | null): boolean {
  return given === "-" ? hash === null : hash?.startsWith(given) === true;
}

/**
 * The targets to review, checked against what was shown: a shown definition no longer held
 * as shown refuses the whole review. Targets not shown stay held (`unshown`).
 */
function chosen(
  picked: Picked,
  shown: Shown,
  request: Request,
): { review: Target[]; unshown: Target[] } {
  const { targets } = picked;
  if (shown.kind === "held now") return { review: targets, unshown: [] };
  const config = request.config === undefined ? "" : ` --config ${request.config}`;
  const hint = ` See what is held now with \`codemode servers pins${config}\`.`;
  if (shown.kind === "asked") {
    const now = new Map(targets.map((t) => [t.tool, t]));
    const stale: StaleDefinition[] = [];
    for (const t of shown.targets) {
      const held = now.get(t.tool);
      if (held?.hash !== t.hash) stale.push({ tool: t.tool, seen: t.hash, held: held?.hash });
    }
    if (stale.length > 0)
      throw new UserError(staleMessage(request.name, stale, request.decision) + hint);
    const asked = new Set(shown.targets.map((t) => t.tool));
    return {
      review: targets.filter((t) => asked.has(t.tool)),
      unshown: targets.filter((t) => !asked.has(t.tool)),
    };
  }
  const matched = new Set<Target>();
  for (const given of shown.hashes) {
    const hits = targets.filter((t) => sameHash(given, t.hash));
    for (const hit of hits) matched.add(hit);
    if (hits.length > 0) continue;
    const rejected = picked.rejected.find((t) => sameHash(given, t.hash));
    if (rejected !== undefined) throw new UserError(rejectedMessage(request.name, [rejected]));
    const done = request.decision === "accept" ? "accepted" : "rejected";
    const [only] = targets;
    if (request.tool !== undefined && only !== undefined) {
      const stale = [{ tool: only.tool, seen: given, held: only.hash }];
      throw new UserError(staleMessage(request.name, stale, request.decision) + hint);
    }
    throw new UserError(
      `Nothing was ${done}: no definition of server ${quote(request.name)} held for review ` +
        `has the hash ${given}: it changed again after it was shown, or is no longer held.${hint}`,
    );
  }
  return {
    review: targets.filter((t) => matched.has(t)),
    unshown: targets.filter((t) => !matched.has(t)),
  };
}

/** Hashes as --hash takes them: `-`, or at least REVIEW_HASH_CHARS hex characters. */
function parseHashes(values: readonly string[]): string[] {
  return values.map((value) => {
    const hash = value.toLowerCase();
    if (hash === "-" || (hash.length >= REVIEW_HASH_CHARS && /^[0-9a-f]{1,64}$/.test(hash)))
      return hash;
    throw new UserError(
      `--hash takes the hash of a held definition as \`codemode servers pins\` prints it ` +
        `(at least ${REVIEW_HASH_CHARS} hex characters; - for a removed tool), not ${quote(value)}`,
    );
  });
}

/** The held definitions a person is about to review, as the terminal shows them. */
function describeHeld(picked: Picked, targets: readonly Target[], request: Request): string {
  const verb = request.decision === "accept" ? "accept" : "reject";
  const lines = [
    `Held changes of ${request.name} this would ${verb} (the Servers page shows them too):`,
  ];
  for (const t of targets) {
    const pinned = picked.entry.pinned[t.tool]?.hash ?? null;
    const hashes =
      t.kind === "changed"
        ? ` (pinned ${shortHash(pinned)}, held ${reviewHash(t.hash)})`
        : t.kind === "added"
          ? ` (held ${reviewHash(t.hash)})`
          : "";
    lines.push(`  ${terminalText(t.tool)}: ${t.kind}${hashes}`);
    const definition = picked.entry.held[t.tool]?.definition ?? null;
    if (t.kind === "removed") {
      lines.push("    the server no longer lists it: accepting drops its pin");
    } else if (definition === null) {
      lines.push(
        `    its definition is over ${PIN_LIMITS.definitionMaxChars} characters: only its hash is kept`,
      );
    } else {
      const text = JSON.stringify(definition, null, 2);
      const cut =
        text.length > SHOWN_DEFINITION_MAX_CHARS
          ? `${text.slice(0, SHOWN_DEFINITION_MAX_CHARS)}\n... (${text.length - SHOWN_DEFINITION_MAX_CHARS} more characters)`
          : text;
      for (const line of cut.split("\n")) lines.push(`    ${line}`);
    }
  }
  return lines.join("\n");
}

/** One line from the terminal; true for y or yes. */
async function askYes(io: CliIO, question: string): Promise<boolean> {
  io.stdout.write(question);
  const lines = createInterface({ input: io.stdin, terminal: false });
  try {
    const answer = await new Promise<string | null>((resolve) => {
      lines.once("line", resolve);
      lines.once("close", () => resolve(null));
      io.signal.addEventListener("abort", () => resolve(null), { once: true });
    });
    const word = answer?.trim().toLowerCase();
    return word === "y" || word === "yes";
  } finally {
    lines.close();
  }
}

function isTerminal(io: CliIO): boolean {
  return (io.stdin as { isTTY?: boolean }).isTTY === true;
}

/**
 * Accepts or rejects the held changes of server NAME (one TOOL, or all of them) that the
 * person was shown: the pin file is read, checked, changed and written under its lock, and the
 * review noted for the audit (a running host records it at once, else the next start does).
 */
export async function reviewCommand(
  decision: Decision,
  argv: string[],
  io: CliIO,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      hash: { type: "string", multiple: true },
      yes: { type: "boolean" },
      ...(decision === "accept" ? { "include-rejected": { type: "boolean" as const } } : {}),
    },
    allowPositionals: true,
  });
  const verb = decision === "accept" ? "accept" : "reject";
  const done = decision === "accept" ? "accepted" : "rejected";
  const [name, tool, ...extra] = positionals;
  if (name === undefined) throw new UserError(`servers ${verb} takes the server NAME (and a TOOL)`);
  if (extra.length > 0) throw new UserError(`unexpected ${JSON.stringify(extra[0])}`);
  const request: Request = {
    file: pinFileOf(values.config, io),
    config: values.config,
    name,
    tool,
    decision,
    includeRejected: (values as { "include-rejected"?: boolean })["include-rejected"] === true,
  };
  const hashes = parseHashes(values.hash ?? []);
  let shown: Shown;
  if (hashes.length > 0) shown = { kind: "hashes", hashes };
  else if (values.yes === true) shown = { kind: "held now" };
  else if (!isTerminal(io)) {
    throw new UserError(
      `nothing was ${done}: there is no terminal to ask on. Give the hash of each change ` +
        "you reviewed with --hash (`codemode servers pins` prints them), or --yes to " +
        `${verb} the changes held now.`,
    );
  } else {
    const picked = pick(await readPins(request.file), request);
    writeLine(io.stdout, describeHeld(picked, picked.targets, request));
    const question = `${decision === "accept" ? "Accept" : "Reject"} these ${picked.targets.length} change(s)? [y/N] `;
    if (!(await askYes(io, question))) {
      writeLine(io.stdout, `Nothing was ${done}.`);
      return 1;
    }
    shown = { kind: "asked", targets: picked.targets };
  }

  const outcome = await withPinLock(request.file, async () => {
    const pins = await readPins(request.file);
    const picked = pick(pins, request);
    const { review: targets, unshown } = chosen(picked, shown, request);
    const at = new Date().toISOString();
    const { pins: next, reviewed: changes } = reviewSeen(picked.entry, targets, decision, at);
    await savePinFile(request.file, {
      ...pins,
      servers: { ...pins.servers, [name]: next ?? picked.entry },
    });
    await noteReviews(request.file, name, changes, decision, at);
    return { changes, unshown, rejected: picked.rejected };
  });

  const list = outcome.changes
    .map((c) => `  ${terminalText(c.tool)}: ${c.kind} (${reviewHash(c.heldHash)})`)
    .join("\n");
  const lines = [
    `${decision === "accept" ? "Accepted" : "Rejected"} ${outcome.changes.length} held change(s) of ${terminalText(name)}:\n${list}`,
    (decision === "accept"
      ? "A running Code Mode (or serve) takes them within a second."
      : "They stay out of the catalog until the server changes them again.") +
      " The audit log records it (when Code Mode next starts, if it is not running).",
  ];
  if (outcome.rejected.length > 0) {
    lines.push(
      `Not accepted: ${outcome.rejected.length} rejected change(s) (${outcome.rejected.map((t) => terminalText(t.tool)).join(", ")}) ` +
        "stay rejected until the server changes them again; --include-rejected accepts them too.",
    );
  }
  if (outcome.unshown.length > 0) {
    const why = shown.kind === "asked" ? "held after the list was shown" : "no hash given for them";
    lines.push(
      `Still held, not ${done} (${why}): ${outcome.unshown.map((t) => terminalText(t.tool)).join(", ")}.`,
    );
  }
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

export const acceptCommand = (argv: string[], io: CliIO): Promise<number> =>
  reviewCommand("accept", argv, io);
export const rejectCommand = (argv: string[], io: CliIO): Promise<number> =>
  reviewCommand("reject", argv, io);

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { MCPB_LIMITS } from "../../../../shared/limits.js";
import type { CatalogValues } from "../../../../shared/server-catalog/catalog-schema.js";
import {
  buildEntry,
  findCatalogEntry,
  SERVER_CATALOG,
  type BuiltEntry,
  type SettingProblem,
} from "../../../../shared/server-catalog/server-catalog.js";
import {
  acquireInstanceLock,
  AlreadyRunningError,
} from "../../ingress/local-access/instance-lock.js";
import { dataDir } from "../../util/paths.js";
import { newNameProblem, SERVERS_FILE } from "../../servers/config/config-store.js";
import {
  bundleView,
  discardBundle,
  installBundle,
  openBundle,
} from "../../servers/mcpb/bundle-store.js";
import { BundleError } from "../../servers/mcpb/zip-reader.js";
import { resolveServerPath } from "../../servers/server-path.js";
import {
  formatConfigIssues,
  parseServersConfig,
  serializeServersConfig,
  validateServersConfig,
} from "../../servers/config/server-config.js";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { pinsCommand } from "./pins-command.js";
import { acceptCommand, rejectCommand } from "./review-command.js";

export const SERVERS_HELP = `Usage:
  codemode servers catalog [--json]
      List the well-known servers shipped with Code Mode and the settings each takes.
  codemode servers add NAME --from-catalog ID [--set KEY=VALUE]...
      Add catalog entry ID to the saved servers under NAME. Give each setting with --set;
      repeat --set for a setting that takes several values (the folders of "filesystem").
  codemode servers add NAME --from-mcpb FILE [--set KEY=VALUE]...
      Add an MCP Bundle (.mcpb): it is unpacked into the data directory and its server
      added under NAME. Give its user_config settings with --set (without a required one,
      the error lists what the bundle asks for).

  codemode servers pins [--config FILE]
      List the pinned tool definitions: server, tool, short hash, and whether a change is held
      for review, with the held definition's hash (what --hash takes).
      --config FILE: the pins of \`codemode serve --config FILE\` (FILE.pins.json).
  codemode servers accept [--config FILE] NAME [TOOL] [--hash H]... [--yes] [--include-rejected]
      Accept the held changes of server NAME (only TOOL when given) that you reviewed: they are
      pinned and the tools become callable. --hash H (once per change): the held definitions
      you reviewed, by the hash \`servers pins\` prints; if the server changed one since, nothing
      is accepted. Without --hash it shows the changes and asks; with no terminal to ask on it
      needs --yes (the changes held now). A rejected change stays rejected: accept passes it
      over unless --include-rejected. A running Code Mode or serve takes this within a second.
  codemode servers reject [--config FILE] NAME [TOOL] [--hash H]... [--yes]
      Reject the held changes of server NAME (only TOOL when given), as the Servers page's
      Reject does: the tools stay out of the catalog until the server changes them again.
      --hash and --yes as for accept. Reviews made here reach the audit log as the CLI's
      (when Code Mode next starts, if it is not running).

The Code Mode app must not be running while servers are added here (add them in its
Servers page instead). CODEMODE_HOME sets the data directory.`;

export async function serversCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "catalog") return catalogCommand(rest, io);
  if (sub === "add") return addCommand(rest, io);
  if (sub === "pins") return pinsCommand(rest, io);
  if (sub === "accept") return acceptCommand(rest, io);
  if (sub === "reject") return rejectCommand(rest, io);
  const help = sub === "--help" || sub === "-h" || sub === "help";
  writeLine(help ? io.stdout : io.stderr, SERVERS_HELP);
  return help ? 0 : 2;
}

function catalogCommand(argv: string[], io: CliIO): number {
  const { values } = parseArgs({ args: argv, options: { json: { type: "boolean" } } });
  if (values.json) {
    writeLine(io.stdout, JSON.stringify(SERVER_CATALOG, null, 2));
    return 0;
  }
  const width = Math.max(...SERVER_CATALOG.map((entry) => entry.id.length));
  const lines = SERVER_CATALOG.map((entry) => {
    const settings = entry.settings.map(
      (s) => `${s.key}${s.required ? "" : "?"}${s.multiple ? "..." : ""}`,
    );
    const needs = settings.length > 0 ? `  [--set ${settings.join(", ")}]` : "";
    return `${entry.id.padEnd(width)}  ${entry.description}${needs}`;
  });
  lines.push(
    "",
    'Settings marked "?" are optional, "..." take several values.',
    "Add one with: codemode servers add NAME --from-catalog ID --set KEY=VALUE",
  );
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

/** `--set KEY=VALUE` options to values by key; a key given twice collects its values. */
export function parseSetOptions(pairs: readonly string[]): CatalogValues {
  const values: Record<string, string[]> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw new UserError(`--set takes KEY=VALUE, not ${JSON.stringify(pair)}`);
    }
    const key = pair.slice(0, at);
    (values[key] ??= []).push(pair.slice(at + 1));
  }
  return Object.fromEntries(
    Object.entries(values).map(([key, list]) => [
      key,
      list.length === 1 ? (list[0] as string) : list,
    ]),
  );
}

async function addCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      "from-catalog": { type: "string" },
      "from-mcpb": { type: "string" },
      set: { type: "string", multiple: true },
    },
    allowPositionals: true,
  });
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UserError("servers add takes the NAME to add the server as");
  if (extra.length > 0) throw new UserError(`unexpected ${JSON.stringify(extra[0])}; see --help`);
  const settings = parseSetOptions(values.set ?? []);
  const bundle = values["from-mcpb"];
  const id = values["from-catalog"];
  if (bundle !== undefined && id !== undefined) {
    throw new UserError("give --from-catalog or --from-mcpb, not both");
  }
  if (bundle !== undefined) return addBundleCommand(name, bundle, settings, io);
  if (id === undefined) {
    throw new UserError(
      "servers add needs --from-catalog ID (see `codemode servers catalog`) or --from-mcpb FILE",
    );
  }
  const entry = findCatalogEntry(id);
  if (!entry) {
    throw new UserError(
      `no catalog entry ${JSON.stringify(id)}; the catalog has: ${SERVER_CATALOG.map((e) => e.id).join(", ")}`,
    );
  }
  const built = buildEntry(entry, settings);
  if (!built.ok) throw new UserError(problemText(built.problems));
  await addToServersFile(dataDir(io.env), name, built.entry);
  writeLine(
    io.stdout,
    `Added ${name} from the catalog (${entry.name}): ${describeEntry(built.entry)}\n` +
      "Code Mode starts it the next time it starts.",
  );
  return 0;
}

function problemText(problems: readonly SettingProblem[]): string {
  return problems.map((p) => (p.key ? `--set ${p.key}: ${p.message}` : p.message)).join("; ");
}

function describeEntry(entry: BuiltEntry): string {
  const launch = [entry.command, ...entry.args].join(" ");
  const secret = entry.secret?.length ? ` (secret: ${entry.secret.join(", ")})` : "";
  // The catalog's suggestion, said where it is applied: calls to these wait for the user.
  const ask = entry.ask?.length
    ? `\nAsks you first before it changes or sends anything: ${entry.ask.join(", ")}`
    : "";
  return launch + secret + ask;
}

async function addBundleCommand(
  name: string,
  file: string,
  settings: CatalogValues,
  io: CliIO,
): Promise<number> {
  const home = dataDir(io.env);
  const bytes = await readBundleFile(file);
  const opened = wrapBundleError(() => openBundle(bytes));
  // The runtime check looks where the app's servers will: the PATH it gives them.
  const serverPath = await resolveServerPath({ env: io.env });
  const installed = await addToServersFile(home, name, async () => {
    const result = await installBundle(opened, settings, {
      dataDir: home,
      pathEnv: serverPath.path,
    }).catch(refused);
    if (!result.ok) {
      const asked = bundleView(opened.manifest).settings.map(
        (s) => `${s.key}${s.required ? "" : "?"} (${s.title})`,
      );
      throw new UserError(
        `${problemText(result.problems)}\nThis bundle takes: ${asked.join(", ") || "no settings"}`,
      );
    }
    return result;
  });
  writeLine(
    io.stdout,
    `Added ${name} from the bundle ${installed.manifest.display_name ?? installed.manifest.name} ${installed.manifest.version}, unpacked in ${installed.dir}: ${describeEntry(installed.entry)}\n` +
      "Code Mode starts it the next time it starts.",
  );
  return 0;
}

async function readBundleFile(file: string): Promise<Buffer> {
  const size = await stat(file).then(
    (s) => s.size,
    (error: NodeJS.ErrnoException) => {
      throw new UserError(`cannot read ${file}: ${error.code ?? error.message}`);
    },
  );
  if (size > MCPB_LIMITS.bundleMaxBytes) {
    throw new UserError(
      `${file} is ${size} bytes; bundles of at most ${MCPB_LIMITS.bundleMaxBytes} bytes are accepted`,
    );
  }
  return readFile(file);
}

/** A refused bundle as the CLI reports it: the reason, no stack. */
function refused(error: unknown): never {
  if (error instanceof BundleError) throw new UserError(`the bundle was refused: ${error.message}`);
  throw error;
}

function wrapBundleError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    return refused(error);
  }
}

/**
 * Adds one entry to the servers file under the app's lock. `make` gives the entry (or an
 * installed bundle holding it) once the lock is held and the name is known to be free; an
 * installed bundle's folder is removed again if the file cannot be written.
 */
async function addToServersFile<T extends BuiltEntry | { entry: BuiltEntry; dir: string }>(
  home: string,
  name: string,
  make: T | (() => Promise<T>),
): Promise<T> {
  // Holding the app's own lock while the file changes: the app cannot start halfway through,
  // and a running app (which would overwrite this edit with its own copy) is named, not raced.
  const lock = await acquireInstanceLock(home).catch((error: unknown) => {
    if (error instanceof AlreadyRunningError) {
      throw new UserError(
        `Code Mode is running for ${home}${error.pid === undefined ? "" : ` (pid ${error.pid})`}: ` +
          `add the server in its Servers page (Add server), or quit it and run this again`,
      );
    }
    throw error;
  });
  let installedDir: string | null = null;
  try {
    const file = path.join(home, SERVERS_FILE);
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw new UserError(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    const current = text === null ? null : parseServersConfig(text);
    if (current !== null && !current.ok) {
      throw new UserError(
        `${file} has problems; fix them first:\n${formatConfigIssues(current.errors, file)}`,
      );
    }
    const servers = new Map(current?.config.servers ?? []);
    if (servers.has(name)) {
      throw new UserError(`a server named ${JSON.stringify(name)} already exists in ${file}`);
    }
    // The name meets the same check as the file before anything is unpacked.
    const nameCheck = validateServersConfig({ mcpServers: { [name]: { command: "x" } } });
    if (!nameCheck.ok) throw new UserError(formatConfigIssues(nameCheck.errors, file));
    // And the app's own for a new name: one it could not reach again would stay for good.
    const nameProblem = newNameProblem(name);
    if (nameProblem !== null) throw new UserError(`server name: ${nameProblem}`);
    const made = typeof make === "function" ? await make() : make;
    const entry = "dir" in made ? made.entry : made;
    if ("dir" in made) installedDir = made.dir;
    const checked = validateServersConfig({ mcpServers: { [name]: entry } });
    if (!checked.ok) throw new UserError(formatConfigIssues(checked.errors, file));
    for (const [key, value] of checked.config.servers) servers.set(key, value);
    // Secrets the app stored encrypted stay as they are: this never decrypts or re-encrypts.
    await writeFileAtomic(file, serializeServersConfig({ servers }));
    installedDir = null;
    return made;
  } finally {
    if (installedDir !== null) await discardBundle(installedDir);
    await lock.release();
  }
}

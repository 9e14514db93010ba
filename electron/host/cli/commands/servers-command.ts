import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { CatalogValues } from "../../../../shared/server-catalog/catalog-schema.js";
import {
  buildEntry,
  findCatalogEntry,
  SERVER_CATALOG,
} from "../../../../shared/server-catalog/server-catalog.js";
import { acquireInstanceLock, AlreadyRunningError } from "../../local-access/instance-lock.js";
import { dataDir } from "../../paths.js";
import { SERVERS_FILE } from "../../servers/config-store.js";
import {
  formatConfigIssues,
  parseServersConfig,
  serializeServersConfig,
  validateServersConfig,
} from "../../servers/server-config.js";
import { writeFileAtomic } from "../../store/atomic-file.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";

export const SERVERS_HELP = `Usage:
  codemode servers catalog [--json]
      List the well-known servers shipped with Code Mode and the settings each takes.
  codemode servers add NAME --from-catalog ID [--set KEY=VALUE]...
      Add catalog entry ID to the saved servers under NAME. Give each setting with --set;
      repeat --set for a setting that takes several values (the folders of "filesystem").

The Code Mode app must not be running while servers are added here (add them in its
Servers page instead). CODEMODE_HOME sets the data directory.`;

export async function serversCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "catalog") return catalogCommand(rest, io);
  if (sub === "add") return addCommand(rest, io);
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
      set: { type: "string", multiple: true },
    },
    allowPositionals: true,
  });
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UserError("servers add takes the NAME to add the server as");
  if (extra.length > 0) throw new UserError(`unexpected ${JSON.stringify(extra[0])}; see --help`);
  const id = values["from-catalog"];
  if (id === undefined) {
    throw new UserError("servers add needs --from-catalog ID (see `codemode servers catalog`)");
  }
  const entry = findCatalogEntry(id);
  if (!entry) {
    throw new UserError(
      `no catalog entry ${JSON.stringify(id)}; the catalog has: ${SERVER_CATALOG.map((e) => e.id).join(", ")}`,
    );
  }
  const built = buildEntry(entry, parseSetOptions(values.set ?? []));
  if (!built.ok) {
    throw new UserError(
      built.problems.map((p) => (p.key ? `--set ${p.key}: ${p.message}` : p.message)).join("; "),
    );
  }

  const home = dataDir(io.env);
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
    // The new entry meets the same check as the file: a bad NAME is named like any problem.
    const checked = validateServersConfig({ mcpServers: { [name]: built.entry } });
    if (!checked.ok) throw new UserError(formatConfigIssues(checked.errors, file));
    for (const [key, value] of checked.config.servers) servers.set(key, value);
    // Secrets the app stored encrypted stay as they are: this never decrypts or re-encrypts.
    await writeFileAtomic(file, serializeServersConfig({ servers }));
  } finally {
    await lock.release();
  }
  const launch = [built.entry.command, ...built.entry.args].join(" ");
  const secret = built.entry.secret?.length ? ` (secret: ${built.entry.secret.join(", ")})` : "";
  writeLine(
    io.stdout,
    `Added ${name} from the catalog (${entry.name}): ${launch}${secret}\n` +
      "Code Mode starts it the next time it starts.",
  );
  return 0;
}

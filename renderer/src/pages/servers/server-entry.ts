// Conversions between the host's ServerView and the form's editable state.
import type { ApiParams } from "../../../../shared/api/api-contract.js";
import type { ServerView } from "../../../../shared/api/api-views.js";

export type ServerEntryInput = ApiParams<"servers.upsert">["entry"];

export interface EnvRow {
  key: number;
  name: string;
  value: string;
  secret: boolean;
  /** The masked value the host sent for an existing secret, while the user has not changed it. */
  maskedFromHost: boolean;
}

export interface ServerFormState {
  name: string;
  command: string;
  /** One argument per line. */
  args: string;
  env: EnvRow[];
}

let rowKey = 1;
export function newEnvRow(partial: Partial<EnvRow> = {}): EnvRow {
  return { key: rowKey++, name: "", value: "", secret: false, maskedFromHost: false, ...partial };
}

export function emptyForm(): ServerFormState {
  return { name: "", command: "", args: "", env: [] };
}

export function formFromServer(server: ServerView): ServerFormState {
  return {
    name: server.name,
    command: server.command,
    args: server.args.join("\n"),
    env: server.env.map((e) =>
      newEnvRow({ name: e.name, value: e.value, secret: e.secret, maskedFromHost: e.secret }),
    ),
  };
}

/** Arguments, one per line; blank lines at the ends dropped, inner ones kept as "". */
export function argsFromText(text: string): string[] {
  const lines = text.split(/\r?\n/);
  while (lines.length && lines[lines.length - 1]!.trim() === "") lines.pop();
  while (lines.length && lines[0]!.trim() === "") lines.shift();
  return lines;
}

/** What servers.upsert gets. Policies (allow, private) of an existing server are kept. */
export function entryFromForm(
  form: ServerFormState,
  existing: ServerView | null,
): ServerEntryInput {
  const env: Record<string, string> = {};
  const secret: string[] = [];
  for (const row of form.env) {
    const name = row.name.trim();
    if (!name) continue;
    env[name] = row.value;
    if (row.secret) secret.push(name);
  }
  const entry: ServerEntryInput = { command: form.command.trim(), args: argsFromText(form.args) };
  if (Object.keys(env).length > 0) entry.env = env;
  if (secret.length > 0) entry.secret = secret;
  if (existing) {
    entry.allow = existing.allow;
    entry.private = existing.private;
  }
  return entry;
}

/** A one-line view of how the server is started. */
export function commandLine(command: string, args: readonly string[] | undefined): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : JSON.stringify(s));
  return [command, ...(args ?? [])].map(quote).join(" ");
}

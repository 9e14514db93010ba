// Conversions between the host's ServerView and the form's editable state.
import type { ApiParams } from "../../../../shared/api/api-contract.js";
import type { ServerView } from "../../../../shared/api/api-views.js";
import { API_LIMITS, SECRET_LIMITS } from "../../../../shared/limits.js";

export type ServerEntryInput = ApiParams<"servers.upsert">["entry"];

/**
 * What is wrong with a server name before it is sent, or null. The host checks it too; the
 * length is the one the API takes to reach the server again (edit, restart, remove).
 */
export function serverNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Give the server a name.";
  const max = API_LIMITS.serverNameMaxChars;
  if (trimmed.length > max)
    return `Use a shorter name: at most ${max} characters (this one has ${trimmed.length}).`;
  return null;
}

export interface EnvRow {
  key: number;
  name: string;
  value: string;
  secret: boolean;
  /**
   * While the user has not typed a new value: the env name of the saved secret this row keeps
   * (the host shows only its mask and gets `{storedSecret: name}` back). null: `value` is the value.
   */
  storedSecret: string | null;
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
  return { key: rowKey++, name: "", value: "", secret: false, storedSecret: null, ...partial };
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
      newEnvRow({
        name: e.name,
        value: e.value,
        secret: e.secret,
        storedSecret: e.secret ? e.name : null,
      }),
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
  const env: NonNullable<ServerEntryInput["env"]> = {};
  const secret: string[] = [];
  for (const row of form.env) {
    const name = row.name.trim();
    if (!name) continue;
    // A saved secret the user did not retype is kept by name, never sent back as its mask.
    env[name] = row.storedSecret === null ? row.value : { storedSecret: row.storedSecret };
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

/**
 * A secret shorter than SECRET_LIMITS.maskMinChars is masked nowhere: hiding every occurrence of
 * a value that short would hide ordinary text too. Said where the value is typed.
 */
export function shortSecret(value: string): boolean {
  return value !== "" && [...value].length < SECRET_LIMITS.maskMinChars;
}

export const SHORT_SECRET_TEXT =
  `Shorter than ${SECRET_LIMITS.maskMinChars} characters: Code Mode cannot hide a value this ` +
  "short in the audit log or in tool results (hiding it would hide ordinary text too). Keys and " +
  "passwords are longer: check that this is the whole value.";

// Every Try it on the record: it runs a command as the user, from a form anyone holding the
// UI's token can fill in. `try_started` (who, what command, arguments and environment, secrets
// replaced) is on disk before the command starts, so a tried command that kills the app is still
// logged; `try_finished` says how it ended before the UI hears of it. No log, no try.
import { randomUUID } from "node:crypto";
import type { TryServerView } from "../../../../shared/api/api-views.js";
import type { Trier } from "../../../../shared/audit-entry.js";
import type { HostAudit } from "../../audit/host-audit.js";
import { redactArgs } from "../../core/secrets/redaction.js";
import { SECRET_MARK, entrySecrets, maskSecrets } from "../../core/secrets/secret-mask.js";
import type { ServerEntry } from "../../core/ports/server-config-types.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";

/** What a try needs of the host's audit log. */
export type TryAudit = Pick<HostAudit, "failure" | "health" | "record" | "durable">;

export interface TryRecord {
  audit: TryAudit;
  by: Trier;
  source: "entry" | "bundle";
  /** The name it is tried under. */
  server: string;
}

/**
 * The command, arguments and environment as logged: the entry's own secrets replaced where they
 * occur (the saved config's are replaced by the log itself), the values of its secret keys
 * whole. Only the occurrences: a try that put a secret of its own into its command replaced
 * the whole argument, and with it what the command did.
 */
function tried(entry: ServerEntry): { command: string; args: string; env: string } {
  const secrets = entrySecrets(entry);
  const masked = (text: string): string => maskSecrets(text, secrets);
  const env = Object.fromEntries(
    Object.entries(entry.env).map(([key, value]) => [
      key,
      entry.secretEnv.includes(key) ? SECRET_MARK : masked(value),
    ]),
  );
  // Cut as call arguments are: each string alike, so a long one cannot push the others out.
  const cut = (value: unknown): string | null => redactArgs(value, { hidden: false, secrets: [] });
  return {
    command: masked(entry.command),
    args: cut(entry.args.map(masked)) ?? "[]",
    env: cut(env) ?? "{}",
  };
}

function unavailable(failure: string): ApiFailure {
  return new ApiFailure(
    "unavailable",
    `Code Mode does not try servers while its audit log cannot be written (${failure}); the Audit page says why.`,
  );
}

/** `run` (the try itself), between its two entries; refused when they cannot be written. */
export async function recordedTry(
  record: TryRecord,
  entry: ServerEntry,
  run: () => Promise<TryServerView>,
): Promise<TryServerView> {
  const { audit, by, server } = record;
  // A log that failed may be writable again (space freed): tried first, as a run does.
  if (audit.failure !== null) await audit.health.probe();
  if (audit.failure !== null) throw unavailable(audit.failure);
  const tryId = randomUUID();
  audit.record({ kind: "try_started", tryId, by, source: record.source, server, ...tried(entry) });
  await audit.durable();
  if (audit.failure !== null) throw unavailable(audit.failure);
  const started = performance.now();
  let result: TryServerView | null = null;
  try {
    result = await run();
    return result;
  } finally {
    audit.record({
      kind: "try_finished",
      tryId,
      by,
      server,
      ok: result?.ok ?? false,
      toolCount: result?.ok ? result.toolCount : null,
      error:
        result === null ? "the try failed in Code Mode itself" : result.ok ? null : result.error,
      durationMs: Math.round(performance.now() - started),
    });
    await audit.durable();
  }
}

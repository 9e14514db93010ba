// The audit entries of "Try it": a server started once from the Add or Edit form, or from an
// .mcpb file, before it is saved. A try runs a command as the user, so each is on the record:
// who asked, what ran, and what came of it. Shared with the UI, so free of Node imports.
import { z } from "zod";
import { common, count, millis } from "./audit-entry-fields.js";

/** Where a try was asked from: the desktop app's window or the browser UI. */
export const TRIERS = ["app", "browser"] as const;
export type Trier = (typeof TRIERS)[number];

/** What was tried: an entry typed in a form (or built from the catalog), or an .mcpb bundle. */
export const TRY_SOURCES = ["entry", "bundle"] as const;

/**
 * Written, and on disk, before the command starts: a tried command that kills the app (its
 * parent) is still on the record.
 */
export const tryStartedEntrySchema = z.object({
  ...common,
  kind: z.literal("try_started"),
  /** Pairs this entry with its try_finished. */
  tryId: z.string(),
  by: z.enum(TRIERS),
  source: z.enum(TRY_SOURCES),
  /** The name it was tried under (its tools' prefix); nothing is saved under it. */
  server: z.string(),
  /** The command as it was started, secrets replaced. */
  command: z.string(),
  /** JSON text of the arguments, secrets replaced, each cut alike to fit. */
  args: z.string(),
  /** JSON text of the environment it was given (not the host's own), secrets replaced. */
  env: z.string(),
});

/** How the try ended: listed its tools, or did not start (the error as the user saw it). */
export const tryFinishedEntrySchema = z.object({
  ...common,
  kind: z.literal("try_finished"),
  tryId: z.string(),
  by: z.enum(TRIERS),
  server: z.string(),
  ok: z.boolean(),
  /** Tools it listed; null when it did not start. */
  toolCount: count.nullable(),
  error: z.string().nullable(),
  durationMs: millis,
});

/**
 * The tried command as one line for a person: the command, then each argument, quoted (as
 * JSON) when it holds a space or a quote. Arguments cut to fit the log no longer parse: then
 * their JSON text as logged.
 */
export function triedCommandLine(entry: { command: string; args: string }): string {
  let args: unknown;
  try {
    args = JSON.parse(entry.args);
  } catch {
    return `${entry.command} ${entry.args}`;
  }
  if (!Array.isArray(args)) return `${entry.command} ${entry.args}`;
  const words = args.map((arg) => {
    const text = typeof arg === "string" ? arg : JSON.stringify(arg);
    return text === "" || /[\s"'\\]/.test(text) ? JSON.stringify(text) : text;
  });
  return [entry.command, ...words].join(" ");
}

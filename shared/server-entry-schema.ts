// One `mcpServers` entry: the one schema of a stdio server as the file, the UI's edits and the
// API write it. Each message names the key (and the item) that is wrong, so the same checks
// serve the file (where the config adds which server) and a request (where the API adds the
// path). Shared with the UI, so free of Node imports.
import { z } from "zod";
import { API_LIMITS } from "./limits.js";

export const ENTRY_KEYS = [
  "command",
  "args",
  "env",
  "type",
  "allow",
  "private",
  "secret",
  "ask",
  "hideArgs",
] as const;
const REMOTE_ONLY_KEYS = new Set(["url", "headers"]);
const STDIO_ONLY = "only stdio servers (command, args, env) can be wrapped";

const quote = (text: string): string => JSON.stringify(text);

/** What a wrong value is, never the value itself (it may be a secret). */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "an empty string";
  return `a ${typeof value}`;
}

/** The key or index an issue is about: the last segment of its path. */
const at = (issue: { path?: PropertyKey[] | undefined }): string => String(issue.path?.at(-1));

/** Why an entry may not hold this key. */
export function unknownKeyMessage(key: string): string {
  return REMOTE_ONLY_KEYS.has(key)
    ? `${quote(key)} is not supported: ${STDIO_ONLY}`
    : `unknown key ${quote(key)}: an entry may hold ${ENTRY_KEYS.map((k) => `"${k}"`).join(", ")}`;
}

const noNul = (text: string): boolean => !text.includes("\0");

/** A list of unique non-empty names: allow, private, secret. */
function nameList(key: string) {
  const item = (issue: { path?: PropertyKey[] | undefined; input?: unknown }) =>
    `${key}[${at(issue)}] must be a non-empty string, not ${describe(issue.input)}`;
  return z
    .array(z.string({ error: item }).min(1, { error: item }), {
      error: `${quote(key)} must be an array of names`,
    })
    .superRefine((names, ctx) => {
      const seen = new Set<string>();
      const reported = new Set<string>();
      names.forEach((name, index) => {
        if (seen.has(name) && !reported.has(name)) {
          reported.add(name);
          ctx.addIssue({
            code: "custom",
            path: [index],
            message: `${key} lists ${quote(name)} more than once`,
          });
        }
        seen.add(name);
      });
    });
}

/** The list when every item is a non-empty string, each once; else null. */
function validNames(list: unknown): string[] | null {
  if (!Array.isArray(list)) return null;
  const names = list.filter((item): item is string => typeof item === "string" && item !== "");
  return names.length === list.length && new Set(names).size === names.length ? names : null;
}

const envValue = z
  .string({
    // Values are passed as written, never converted: say how to write a number.
    error: (issue) =>
      `env ${quote(at(issue))} must be a string, not ${describe(issue.input)} (write it in quotes)`,
  })
  .refine(noNul, { error: (issue) => `env ${quote(at(issue))} holds a NUL character` });

/**
 * An env value that keeps the secret already stored under that env name (of the server as
 * saved, i.e. under its previous name when it is renamed). The UI never holds a secret in
 * full, so instead of sending one back it says which one to keep; any string is a new value.
 */
export const storedSecretRef = z.strictObject({
  storedSecret: z.string().min(1).max(API_LIMITS.envNameMaxChars),
});
export type StoredSecretRef = z.infer<typeof storedSecretRef>;

/** The entry's keys and checks, with env values of the given schema. */
function entrySchema<V extends z.ZodType>(value: V) {
  return z
    .strictObject(
      {
        type: z
          .literal("stdio", {
            error: (issue) => {
              const shown =
                typeof issue.input === "string"
                  ? quote(issue.input)
                  : String(JSON.stringify(issue.input));
              return `type ${shown} is not supported: ${STDIO_ONLY}`;
            },
          })
          .optional(),
        command: z
          .string({
            error: (issue) =>
              issue.input === undefined
                ? `"command" is missing`
                : `"command" must be a non-empty string`,
          })
          .refine((command) => command.trim() !== "", {
            error: `"command" must be a non-empty string`,
          })
          .refine(noNul, { error: `"command" holds a NUL character` }),
        args: z
          .array(
            z
              .string({
                error: (issue) =>
                  `args[${at(issue)}] must be a string, not ${describe(issue.input)}`,
              })
              .refine(noNul, { error: (issue) => `args[${at(issue)}] holds a NUL character` }),
            { error: `"args" must be an array of strings` },
          )
          .optional(),
        env: z
          .record(
            // Names with "=" or NUL cannot be put in a process environment at all.
            z.string().refine((name) => name !== "" && !name.includes("=") && noNul(name)),
            value,
            {
              error: (issue) =>
                issue.code === "invalid_key"
                  ? `env name ${quote(at(issue))} is not a valid variable name`
                  : `"env" must be an object of NAME -> string value`,
            },
          )
          .optional(),
        allow: nameList("allow").nullable().optional(),
        private: z
          .union([z.boolean(), nameList("private")], {
            // A list with a bad item: name the item, as for allow and secret.
            error: (issue) =>
              issue.code === "invalid_union" && Array.isArray(issue.input)
                ? issue.errors[1]?.[0]?.message
                : `"private" must be true, false or an array of tool names`,
          })
          .optional(),
        secret: nameList("secret").optional(),
        // "Ask first": true asks before every call to the server's tools; a list, before
        // calls to those tools (server's own names).
        ask: z
          .union([z.boolean(), nameList("ask")], {
            error: (issue) =>
              issue.code === "invalid_union" && Array.isArray(issue.input)
                ? issue.errors[1]?.[0]?.message
                : `"ask" must be true, false or an array of tool names`,
          })
          .optional(),
        // Arguments kept out of the audit log: true for every tool, a list for those tools.
        hideArgs: z
          .union([z.boolean(), nameList("hideArgs")], {
            error: (issue) =>
              issue.code === "invalid_union" && Array.isArray(issue.input)
                ? issue.errors[1]?.[0]?.message
                : `"hideArgs" must be true, false or an array of tool names`,
          })
          .optional(),
      },
      {
        error: (issue) =>
          issue.code === "unrecognized_keys"
            ? issue.keys.map(unknownKeyMessage).join("; ")
            : `the entry must be an object with at least "command"`,
      },
    )
    .superRefine(
      (entry, ctx) => {
        // Across keys; runs even when a key is wrong, so one pass names every problem.
        // Only lists that are valid themselves are compared: a bad item is named already.
        const allow = validNames(entry.allow);
        const labels = validNames(entry.private);
        if (allow && labels) {
          const kept = new Set(allow);
          labels.forEach((tool, index) => {
            // A label on a tool that is not kept would stop startup later; say so now.
            if (!kept.has(tool)) {
              ctx.addIssue({
                code: "custom",
                path: ["private", index],
                message: `private tool ${quote(tool)} is not in "allow"`,
              });
            }
          });
        }
        const asked = validNames(entry.ask);
        if (allow && asked) {
          const kept = new Set(allow);
          asked.forEach((tool, index) => {
            // Asking before a tool that is off would never happen: say so rather than keep it.
            if (!kept.has(tool)) {
              ctx.addIssue({
                code: "custom",
                path: ["ask", index],
                message: `ask-first tool ${quote(tool)} is not in "allow"`,
              });
            }
          });
        }
        const env: unknown = entry.env ?? {};
        const secrets = validNames(entry.secret);
        if (secrets && typeof env === "object" && env !== null) {
          const keys = new Set(Object.keys(env));
          secrets.forEach((secret, index) => {
            if (!keys.has(secret)) {
              ctx.addIssue({
                code: "custom",
                path: ["secret", index],
                message: `secret ${quote(secret)} is not a key of "env"`,
              });
            }
          });
        }
      },
      { when: (payload) => typeof payload.value === "object" && payload.value !== null },
    );
}

/** An entry as the file writes it (env values are the values). */
export const serverEntryFileSchema = entrySchema(envValue);
export type ServerEntryFile = z.input<typeof serverEntryFileSchema>;

/** An entry as the UI sends it: an env value may instead keep a stored secret. */
export const serverEntryInput = entrySchema(
  z.union([envValue, storedSecretRef], {
    error: (issue) =>
      `env ${quote(at(issue))} must be a string or {"storedSecret": NAME}, not ${describe(issue.input)}`,
  }),
);
export type ServerEntryInput = z.input<typeof serverEntryInput>;

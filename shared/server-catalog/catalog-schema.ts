// The shape of the catalog of well-known servers (servers.json beside this file). One zod
// schema is the only description of it: the host, the CLI and the renderer take their types
// from here, and the catalog test checks every shipped entry against it.
import { z } from "zod";
import { SERVER_CATALOG_LIMITS } from "../limits.js";

/** Ids, setting keys: lowercase words joined by "-" or "_", so they read well on a command line. */
const ID = /^[a-z0-9][a-z0-9_-]*$/;
/** An environment variable name as shells write them. */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
/** A tool name as the catalog's servers spell theirs. */
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Where a setting's value goes when the server is started:
 * - `env`: into the named environment variable;
 * - `arg`: appended to the arguments (each value, for a setting that takes several);
 * - `flag`: appended as `FLAG VALUE`, or `FLAG=VALUE` when `joined`.
 */
export const settingTarget = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("env"), name: z.string().regex(ENV_NAME) }),
  z.strictObject({ type: z.literal("arg") }),
  z.strictObject({
    type: z.literal("flag"),
    flag: z.string().startsWith("-"),
    joined: z.boolean().optional(),
  }),
]);
export type SettingTarget = z.infer<typeof settingTarget>;

/**
 * One thing the user must (or may) give: a folder, a file, a plain text value or a secret.
 * The UI shows a folder picker for `folder` in the desktop app and a text field elsewhere;
 * a `secret` is masked in the UI and kept out of logs (its env name is marked secret).
 */
export const catalogSetting = z
  .strictObject({
    key: z.string().regex(ID).max(40),
    label: z.string().min(1).max(80),
    /** One line: what it is and, for a token, where the user gets it. */
    help: z.string().min(1).max(SERVER_CATALOG_LIMITS.settingHelpMaxChars),
    kind: z.enum(["folder", "file", "text", "secret"]),
    required: z.boolean(),
    /** Takes several values (the folders a filesystem server may use). */
    multiple: z.boolean().optional(),
    placeholder: z.string().max(200).optional(),
    target: settingTarget,
  })
  .refine((s) => s.kind !== "secret" || s.target.type === "env", {
    // Arguments show up in process lists and in the UI; only env values can be kept secret.
    message: "a secret setting must go into an env variable",
  })
  .refine((s) => !s.multiple || s.target.type !== "env", {
    message: "an env variable holds one value: a setting that takes several must be an arg",
  });
export type CatalogSetting = z.infer<typeof catalogSetting>;

export const catalogEntry = z
  .strictObject({
    id: z.string().regex(ID).max(40),
    name: z.string().min(1).max(60),
    description: z.string().min(1).max(SERVER_CATALOG_LIMITS.descriptionMaxChars),
    /** Words the gallery's search also matches (what the server is about). */
    tags: z.array(z.string().min(1).max(30)).max(10),
    command: z.enum(["npx", "uvx", "docker"]),
    args: z.array(z.string().min(1)).min(1),
    settings: z.array(catalogSetting),
    /**
     * Suggested policy: `true` marks every tool private (a server that reads the user's
     * own data: files, mail, repositories, databases). Tool names are never listed here,
     * since a label naming a tool the server does not have would stop startup.
     */
    private: z.boolean(),
    /**
     * Suggested policy: the tools that change or send things (write, move, delete a file; post
     * a message; commit), which ask the user first when the server is added from the catalog.
     * The server's own names; a name it does not list asks nothing and stops nothing, and the
     * catalog test checks each against the real server where the tests can start it.
     */
    ask: z
      .array(z.string().regex(TOOL_NAME).max(64))
      .max(SERVER_CATALOG_LIMITS.askToolsMax)
      .optional(),
  })
  .refine((e) => new Set(e.settings.map((s) => s.key)).size === e.settings.length, {
    message: "two settings share a key",
  })
  .refine(
    (e) => {
      const names = e.settings.flatMap((s) => (s.target.type === "env" ? [s.target.name] : []));
      return new Set(names).size === names.length;
    },
    { message: "two settings set the same env variable" },
  )
  .refine((e) => new Set(e.ask ?? []).size === (e.ask ?? []).length, {
    message: "ask names a tool twice",
  })
  .refine((e) => e.command !== "npx" || e.args[0] === "-y", {
    // Without -y, npx stops to ask before installing, and a server has no one to answer.
    message: 'an npx entry must start its args with "-y"',
  });
export type CatalogEntry = z.infer<typeof catalogEntry>;

export const serverCatalog = z
  .strictObject({
    version: z.literal(1),
    servers: z.array(catalogEntry).min(SERVER_CATALOG_LIMITS.minEntries),
  })
  .refine((c) => new Set(c.servers.map((s) => s.id)).size === c.servers.length, {
    message: "two entries share an id",
  });
export type ServerCatalog = z.infer<typeof serverCatalog>;

/**
 * The values a user gives for an entry's settings, by key. A setting that takes several
 * values gets an array; any other gets one string.
 */
export const catalogValues = z
  .record(
    z.string().max(40),
    z.union([
      z.string().max(SERVER_CATALOG_LIMITS.valueMaxChars),
      z
        .array(z.string().max(SERVER_CATALOG_LIMITS.valueMaxChars))
        .max(SERVER_CATALOG_LIMITS.valuesPerSettingMax),
    ]),
  )
  .refine((values) => Object.keys(values).length <= SERVER_CATALOG_LIMITS.settingsMax, {
    message: `at most ${SERVER_CATALOG_LIMITS.settingsMax} settings`,
  });
export type CatalogValues = z.infer<typeof catalogValues>;

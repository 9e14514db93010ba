// A bundle's manifest plus the user's values become an ordinary `mcpServers` entry: the
// user_config values are checked against their declared types, and the MCPB variables
// (${__dirname}, ${HOME}, ${user_config.KEY}, ...) are put into server.mcp_config. Values of
// options marked `sensitive` may only reach env entries, which are then marked secret like
// any other secret env value; a bundle that puts one on the command line is refused, since
// Code Mode keeps secrets out of logs and the UI only in env.
import path from "node:path";
import type { CatalogValues } from "../../../../shared/server-catalog/catalog-schema.js";
import type {
  BuildResult,
  BuiltEntry,
  SettingProblem,
} from "../../../../shared/server-catalog/server-catalog.js";
import { SERVER_CATALOG_LIMITS } from "../../../../shared/limits.js";
import type { McpbManifest, McpbUserConfigOption } from "./mcpb-manifest.js";

/** Where the bundle is unpacked and the user's folders, for the spec's variables. */
export interface BundlePlace {
  dir: string;
  home: string;
  platform: NodeJS.Platform;
}

function systemVariables(place: BundlePlace): Map<string, string> {
  const sep = place.platform === "win32" ? "\\" : "/";
  const join = (name: string) => `${place.home}${sep}${name}`;
  return new Map([
    ["__dirname", place.dir],
    ["HOME", place.home],
    ["DESKTOP", join("Desktop")],
    ["DOCUMENTS", join("Documents")],
    ["DOWNLOADS", join("Downloads")],
    ["pathSeparator", sep],
    ["/", sep],
  ]);
}

const USER_PREFIX = "user_config.";

interface Substituted {
  text: string;
  /** user_config keys used in the text. */
  used: string[];
}

/**
 * Replaces every `${NAME}` whose NAME `lookup` knows; others stay as written. One pass with
 * indexOf: linear in the text whatever the bundle holds.
 */
function substitute(text: string, lookup: (name: string) => string | undefined): Substituted {
  let out = "";
  let at = 0;
  const used: string[] = [];
  for (;;) {
    const open = text.indexOf("${", at);
    if (open < 0) break;
    const close = text.indexOf("}", open + 2);
    if (close < 0) break;
    const name = text.slice(open + 2, close);
    const value = lookup(name);
    out += text.slice(at, open) + (value ?? text.slice(open, close + 1));
    if (value !== undefined && name.startsWith(USER_PREFIX))
      used.push(name.slice(USER_PREFIX.length));
    at = close + 1;
  }
  return { text: out + text.slice(at), used };
}

function valuesOf(raw: string | string[] | undefined): string[] {
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((value) => value.trim()).filter((value) => value !== "");
}

function defaultValues(option: McpbUserConfigOption, system: Map<string, string>): string[] {
  const raw = option.default;
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [String(raw)];
  return list.map((value) => substitute(value, (name) => system.get(name)).text);
}

function checkValue(option: McpbUserConfigOption, value: string): string | null {
  if (value.includes("\0")) return "holds a NUL character";
  if (value.length > SERVER_CATALOG_LIMITS.valueMaxChars) {
    return `is longer than ${SERVER_CATALOG_LIMITS.valueMaxChars} characters`;
  }
  if (option.type === "boolean" && value !== "true" && value !== "false") {
    return "must be true or false";
  }
  if (option.type === "number") {
    const number = Number(value);
    if (value === "" || !Number.isFinite(number)) return "must be a number";
    if (option.min !== undefined && number < option.min) return `must be at least ${option.min}`;
    if (option.max !== undefined && number > option.max) return `must be at most ${option.max}`;
  }
  return null;
}

/**
 * The user's values by user_config key, checked: unknown keys, required ones left empty,
 * several values where one is taken, and values of the wrong type are all reported.
 */
function resolveValues(
  manifest: McpbManifest,
  values: CatalogValues,
  system: Map<string, string>,
  problems: SettingProblem[],
): Map<string, string[]> {
  const options = new Map(Object.entries(manifest.user_config ?? {}));
  for (const key of Object.keys(values)) {
    if (!options.has(key)) {
      const known = [...options.keys()];
      problems.push({
        key,
        message: `the bundle has no setting ${JSON.stringify(key)}: ${known.length > 0 ? `it takes ${known.join(", ")}` : "it takes none"}`,
      });
    }
  }
  const resolved = new Map<string, string[]>();
  for (const [key, option] of options) {
    const given = valuesOf(Object.hasOwn(values, key) ? values[key] : undefined);
    const list = given.length > 0 ? given : defaultValues(option, system);
    if (list.length === 0) {
      if (option.required) {
        problems.push({
          key,
          message: `${option.title} is required${option.description ? `: ${option.description}` : ""}`,
        });
      }
      continue;
    }
    const several =
      option.multiple === true && (option.type === "directory" || option.type === "file");
    if (list.length > 1 && !several) {
      problems.push({ key, message: `${option.title} takes one value, not ${list.length}` });
      continue;
    }
    if (list.length > SERVER_CATALOG_LIMITS.valuesPerSettingMax) {
      problems.push({
        key,
        message: `${option.title} takes at most ${SERVER_CATALOG_LIMITS.valuesPerSettingMax} values`,
      });
      continue;
    }
    const bad = list.map((value) => checkValue(option, value)).find((reason) => reason !== null);
    if (bad) {
      problems.push({ key, message: `${option.title} ${bad}` });
      continue;
    }
    resolved.set(key, list);
  }
  return resolved;
}

/** The entry the bundle becomes once unpacked at `place.dir`, or every problem found. */
export function buildBundleEntry(
  manifest: McpbManifest,
  values: CatalogValues,
  place: BundlePlace,
): BuildResult {
  const problems: SettingProblem[] = [];
  const system = systemVariables(place);
  const resolved = resolveValues(manifest, values, system, problems);
  if (problems.length > 0) return { ok: false, problems };

  const options = new Map(Object.entries(manifest.user_config ?? {}));
  const sensitive = (key: string) => options.get(key)?.sensitive === true;
  const { platform_overrides: overrides, ...base } = manifest.server.mcp_config;
  const override = overrides ? new Map(Object.entries(overrides)).get(place.platform) : undefined;
  const config = { ...base, ...override };

  const lookup = (name: string): string | undefined => {
    if (!name.startsWith(USER_PREFIX)) return system.get(name);
    const key = name.slice(USER_PREFIX.length);
    if (!options.has(key)) {
      problems.push({
        key: "",
        message: `the bundle's mcp_config uses \${${name}}, which its user_config does not declare`,
      });
      return undefined;
    }
    const list = resolved.get(key) ?? [];
    if (list.length > 1) {
      problems.push({
        key,
        message: `the bundle uses ${options.get(key)?.title ?? key} (several values) inside a longer text`,
      });
    }
    return list[0] ?? "";
  };
  const onCommandLine = (used: string[]): void => {
    for (const key of used.filter(sensitive)) {
      problems.push({
        key,
        message: `${options.get(key)?.title ?? key} is secret, but the bundle passes it on the command line, where any process can read it; Code Mode keeps secrets only in environment variables`,
      });
    }
  };

  const command = substitute(config.command, lookup);
  onCommandLine(command.used);
  const args: string[] = [];
  for (const arg of config.args ?? []) {
    // An argument that is exactly one user_config value expands to all of its values (or
    // none when it was left empty), as the spec says for `multiple` folders.
    if (
      arg.startsWith(`\${${USER_PREFIX}`) &&
      arg.endsWith("}") &&
      arg.indexOf("}") === arg.length - 1
    ) {
      const key = arg.slice(USER_PREFIX.length + 2, -1);
      if (options.has(key)) {
        onCommandLine([key]);
        args.push(...(resolved.get(key) ?? []));
        continue;
      }
    }
    const done = substitute(arg, lookup);
    onCommandLine(done.used);
    args.push(done.text);
  }
  const env: Record<string, string> = {};
  const secret: string[] = [];
  for (const [name, value] of Object.entries(config.env ?? {})) {
    const done = substitute(value, lookup);
    env[name] = done.text;
    if (done.used.some(sensitive)) secret.push(name);
  }
  if (problems.length > 0) return { ok: false, problems };

  // The spec's binaries name their command relative to the bundle ("server/my-server").
  let launch = command.text;
  if (!path.isAbsolute(launch) && (launch.includes("/") || launch.includes("\\"))) {
    launch = path.join(place.dir, launch);
  }
  const entry: BuiltEntry = {
    command: launch,
    args,
    env,
    ...(secret.length > 0 ? { secret } : {}),
  };
  return { ok: true, entry };
}

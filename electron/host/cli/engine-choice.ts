// The container engine a command uses: `--engine` when given, else the app's saved choice
// (settings.json's sandboxEngine, set on the Sandbox page or by `codemode engine use`), else
// none, which lets Code Mode look (DOCKER_HOST, the Docker context, each product's socket).
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { LOCAL_ACCESS_MODES } from "../../../shared/limits.js";
import { engineChoiceProblem } from "../../../shared/settings.js";
import { dataDir } from "../util/paths.js";
import {
  parseSettingsFile,
  SETTINGS_FILE,
  settingsFileText,
} from "../servers/settings/settings-file.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import { UserError } from "./cli-io.js";

/** Help text of --engine, shared by `run`, `serve` and `image`. */
export const ENGINE_HELP = `  --engine E     the container engine: a name from \`codemode engine list\`, or a URL
                 (unix:///path, tcp://host:2376 with DOCKER_CERT_PATH, ssh://user@host).
                 Default: the app's choice (Sandbox page, codemode engine use), else
                 DOCKER_HOST, the current Docker context, or the first engine that answers`;

/** The --engine value, checked; null when not given. */
export function parseEngineFlag(value: string | undefined): string | null {
  if (value === undefined) return null;
  const problem = engineChoiceProblem(value);
  if (problem !== null || value === "")
    throw new UserError(`--engine ${problem ?? "needs a value"}`);
  return value;
}

async function settingsText(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** `--engine` when given, else the app's saved choice ("" when none). */
export async function enginePreference(
  env: NodeJS.ProcessEnv,
  flag: string | null,
): Promise<string> {
  if (flag !== null) return flag;
  const text = await settingsText(path.join(dataDir(env), SETTINGS_FILE));
  if (text === null) return "";
  const parsed = parseSettingsFile(text);
  // An unusable file is named by the runtime choice (chooseRuntime); here it means no choice.
  return parsed.ok ? parsed.value.settings.sandboxEngine : "";
}

/** Saves the choice in settings.json, keeping every other setting the user chose. */
export async function saveEngineChoice(env: NodeJS.ProcessEnv, choice: string): Promise<string> {
  const home = dataDir(env);
  const file = path.join(home, SETTINGS_FILE);
  await mkdir(home, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });
  const text = await settingsText(file);
  const parsed = text === null ? null : parseSettingsFile(text);
  if (parsed && !parsed.ok) throw new UserError(`${parsed.problem}; fix or remove ${file} first`);
  const { sandboxEngine: _old, ...others } = parsed?.value.chosen ?? {};
  // "" is the default (look for one): not kept as a choice, so a later default applies.
  const chosen = choice === "" ? others : { ...others, sandboxEngine: choice };
  await writeFileAtomic(file, settingsFileText(chosen));
  return file;
}

import { findDocker } from "../sandbox/container-engine/docker-status.js";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { LOCAL_ACCESS_MODES } from "../../../shared/limits.js";
import { checkDataDirTrust, DataDirTrustError } from "../ingress/local-access/data-dir-trust.js";
import { dataDir, sandboxImageDir } from "../util/paths.js";
import { currentOwner, type ContainerOwner } from "../sandbox/containers/container-owner.js";
import { ensureInstallId, INSTALL_ID_FILE } from "../sandbox/containers/install-id.js";
import { imageTagFor, readContext, type ContextFile } from "../sandbox/image.js";
import { UserError } from "./cli-io.js";
import { enginePreference } from "./engine-choice.js";
import {
  sandboxRuntimeSchema,
  SANDBOX_RUNTIMES,
  type SandboxRuntime,
} from "../../../shared/settings.js";
import { missingRuntimeMessage } from "../sandbox/container-engine/docker-runtimes.js";
import type { SandboxEngine } from "../sandbox/container-engine/sandbox-engine.js";
import { SETTINGS_FILE } from "../servers/settings/settings-file.js";
import { parseSettingsFile } from "../servers/settings/settings-file.js";
import { DEFAULT_SETTINGS, type Settings } from "../servers/settings/settings.js";

/** Help text of --runtime, shared by `run` and `serve`. */
export const RUNTIME_HELP = `  --runtime R    container runtime: runc or runsc (gVisor, stronger isolation, slower
                 start; Docker must have it registered). Default: the app's Isolation
                 setting (Sandbox page; runc until it is set to Strong)`;

/** The --runtime value, null when not given; anything else is a UserError naming the choices. */
export function parseRuntimeFlag(value: string | undefined): SandboxRuntime | null {
  if (value === undefined) return null;
  const parsed = sandboxRuntimeSchema.safeParse(value);
  if (!parsed.success) {
    throw new UserError(
      `--runtime takes ${SANDBOX_RUNTIMES.join(" or ")}, not ${JSON.stringify(value)}`,
    );
  }
  return parsed.data;
}

/** The runtime a command runs on, and where that choice came from (for its error message). */
export interface RuntimeChoice {
  runtime: SandboxRuntime;
  from: "flag" | "settings";
}

/**
 * The user who chose Strong isolation in the app expects it of `run` and `serve` too: they use
 * the app's data directory (its install id, its containers). So without --runtime the saved
 * setting applies; the flag, when given, wins. A settings file the app could not use either
 * (not JSON, a value out of bounds) leaves the app's default, as the app does, and says so.
 */
export async function chooseRuntime(
  ctx: DockerContext,
  flag: SandboxRuntime | null,
  warn: (message: string) => void,
): Promise<RuntimeChoice> {
  if (flag !== null) return { runtime: flag, from: "flag" };
  const saved = await savedSettings(ctx.home, (problem) =>
    warn(
      `${problem}; using the default runtime ${DEFAULT_SETTINGS.sandboxRuntime} (choose one with --runtime)`,
    ),
  );
  return { runtime: saved?.sandboxRuntime ?? DEFAULT_SETTINGS.sandboxRuntime, from: "settings" };
}

/**
 * Whether `serve`'s warm container preloads: false with --no-preload, else the app's saved
 * setting (on by default), as for the runtime. A settings file the app could not use was
 * already named by chooseRuntime, so it is not named again.
 */
export async function choosePreload(ctx: DockerContext, flag: false | null): Promise<boolean> {
  if (flag !== null) return flag;
  const saved = await savedSettings(ctx.home, () => undefined);
  return saved?.sandboxPreload ?? DEFAULT_SETTINGS.sandboxPreload;
}

/** The app's saved settings, or the defaults where there are none (or the file is invalid). */
export async function appSettings(home: string): Promise<Settings> {
  return (await savedSettings(home, () => undefined)) ?? DEFAULT_SETTINGS;
}

/** The app's saved settings; null when there are none, or when the file is invalid (`warn`). */
async function savedSettings(
  home: string,
  warn: (problem: string) => void,
): Promise<Settings | null> {
  const file = path.join(home, SETTINGS_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseSettingsFile(text);
  if (!parsed.ok) {
    warn(parsed.problem);
    return null;
  }
  return parsed.value.settings;
}

/** A runtime the engine lacks is refused before any container is made, naming those it has. */
export async function requireRuntime(ctx: DockerContext, choice: RuntimeChoice): Promise<void> {
  const message = missingRuntimeMessage(choice.runtime, await ctx.engine.runtimes(), ctx.engine);
  if (message === null) return;
  if (choice.from === "flag") throw new UserError(`--runtime ${choice.runtime}: ${message}`);
  throw new UserError(
    `the app's Isolation setting (sandboxRuntime ${choice.runtime} in ${SETTINGS_FILE}): ${message} Choose another with --runtime, or on the Sandbox page.`,
  );
}

export interface DockerContext {
  /** The engine, through its boundary (container-engine/sandbox-engine.ts). */
  engine: SandboxEngine;
  endpoint: string;
  /** The engine's name (`docker`, `podman`, a URL), for the audit log and messages. */
  engineName: string;
  /** Ends what the connection holds open (SSH); call when the command is done. */
  close(): void;
  files: ContextFile[];
  tag: string;
  home: string;
  /** The owner of the containers this command starts. */
  owner: ContainerOwner;
}

/** Docker and the image's expected tag, or a UserError saying exactly what to do. */
export async function dockerContext(
  env: NodeJS.ProcessEnv,
  engineFlag: string | null = null,
): Promise<DockerContext> {
  const status = await findDocker({ env, preference: await enginePreference(env, engineFlag) });
  if (status.state !== "ready") throw new UserError(status.message);
  const files = readContext(sandboxImageDir());
  const home = dataDir(env);
  return {
    owner: currentOwner(await installId(home)),
    engine: status.engine,
    endpoint: status.endpoint,
    engineName: status.name ?? status.endpoint,
    close: () => status.close?.(),
    files,
    tag: imageTagFor(files),
    home,
  };
}

/** The data directory's install id; its folder must be the user's own (data-dir-trust.ts). */
async function installId(home: string): Promise<string> {
  await mkdir(home, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });
  try {
    // settings.json too: its Isolation setting chooses the runtime when --runtime is not given.
    await checkDataDirTrust(home, [INSTALL_ID_FILE, SETTINGS_FILE]);
  } catch (error) {
    if (error instanceof DataDirTrustError) throw new UserError(error.message);
    throw error;
  }
  return ensureInstallId(home);
}

export async function requireImage(ctx: DockerContext): Promise<void> {
  if (!(await ctx.engine.imagePresent(ctx.tag))) {
    throw new UserError(
      `The sandbox image ${ctx.tag} is not built yet. Run \`codemode image build\` (it takes a few minutes once).`,
    );
  }
}

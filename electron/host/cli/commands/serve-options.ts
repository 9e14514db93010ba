import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { BRIDGE_LIMITS, HOST_LIMITS, RUN_LIMITS } from "../../../../shared/limits.js";
import {
  formatConfigIssues,
  parseServersConfig,
  singleServerConfig,
} from "../../servers/config/server-config.js";
import type { ServersConfig } from "../../core/ports/server-config-types.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { UserError } from "../cli-io.js";
import { ENGINE_HELP, parseEngineFlag } from "../engine-choice.js";
import { parseRuntimeFlag, RUNTIME_HELP } from "../sandbox-context.js";
import { parseSeconds } from "./run-command.js";

export const SERVE_HELP = `Usage: codemode serve [--allow T]... [--private T]... [--env NAME]... [--deadline S] [--max-calls N] [--runtime R] [--engine E] [--no-preload] -- COMMAND ARGS...
       codemode serve --config FILE [--deadline S] [--max-calls N] [--runtime R] [--engine E] [--no-preload]

Serves one MCP tool, run_python, over stdio: the model's Python calls the tools of the
wrapped server(s) from a locked-down sandbox, and every call is checked on the way.

  --allow T       keep only this tool of the server (repeatable; default: all tools)
  --private T     mark this tool as one that may see private data (repeatable)
  --env NAME      pass this variable of this environment to the wrapped server (repeatable)
  --config FILE   wrap every server of an mcpServers file (tools named server__tool)
  --deadline S    stop each run after S seconds (default ${RUN_LIMITS.defaultDeadlineSeconds}, at most ${RUN_LIMITS.maxDeadlineSeconds}; MCP
                  clients stop waiting after ${HOST_LIMITS.clientDefaultTimeoutSeconds} s by default unless they reset on progress)
  --max-calls N   tool calls per run (default ${BRIDGE_LIMITS.defaultMaxCallsPerRun})
  --no-preload    the warm container does not import numpy, pandas and matplotlib while it
                  waits (without the flag the app's saved setting decides, on by default:
                  runs using them start faster, at the cost of more memory while idle)
${RUNTIME_HELP}
${ENGINE_HELP}`;

export interface ServeOptions {
  config: ServersConfig;
  /** With --config every name is server__tool, so names do not change when a server is added. */
  prefixWithServer: boolean;
  deadlineSeconds: number | undefined;
  maxCalls: number | undefined;
  /** From --runtime; null leaves the app's saved Isolation setting in charge. */
  runtime: SandboxRuntime | null;
  /** False with --no-preload; null leaves the app's saved sandboxPreload setting in charge. */
  preload: false | null;
  /** From --engine; null leaves the app's choice (or the search for one) in charge. */
  engine: string | null;
  help: boolean;
  /** The --config file (its pins live beside it); null for a server given after --. */
  configFile: string | null;
}

/** Parses `serve` arguments; every mistake is a UserError that names the option. */
export async function parseServeOptions(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<ServeOptions> {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      allow: { type: "string", multiple: true },
      private: { type: "string", multiple: true },
      env: { type: "string", multiple: true },
      config: { type: "string" },
      deadline: { type: "string" },
      "max-calls": { type: "string" },
      runtime: { type: "string" },
      engine: { type: "string" },
      "no-preload": { type: "boolean" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const empty: ServersConfig = { servers: new Map() };
  if (values.help) {
    return {
      config: empty,
      prefixWithServer: false,
      deadlineSeconds: undefined,
      maxCalls: undefined,
      runtime: null,
      preload: null,
      engine: null,
      help: true,
      configFile: null,
    };
  }
  if (positionals.length > 0) {
    throw new UserError(
      `unexpected ${JSON.stringify(positionals[0])}: put the server's command after --, e.g. codemode serve -- npx my-server`,
    );
  }
  const runtime = parseRuntimeFlag(values.runtime);
  const engine = parseEngineFlag(values.engine);
  const preload = values["no-preload"] === true ? false : null;
  const deadlineSeconds =
    values.deadline === undefined ? undefined : parseSeconds(values.deadline, "--deadline");
  if (deadlineSeconds !== undefined && deadlineSeconds > RUN_LIMITS.maxDeadlineSeconds) {
    throw new UserError(`--deadline can be at most ${RUN_LIMITS.maxDeadlineSeconds} seconds`);
  }
  let maxCalls: number | undefined;
  if (values["max-calls"] !== undefined) {
    maxCalls = Number(values["max-calls"]);
    if (
      !Number.isInteger(maxCalls) ||
      maxCalls < 1 ||
      maxCalls > BRIDGE_LIMITS.maxCallsPerRunCeiling
    ) {
      throw new UserError(
        `--max-calls takes a whole number from 1 to ${BRIDGE_LIMITS.maxCallsPerRunCeiling}, not ${JSON.stringify(values["max-calls"])}`,
      );
    }
  }

  if (values.config !== undefined) {
    const single = [
      ["--allow", values.allow],
      ["--private", values.private],
      ["--env", values.env],
    ].filter(([, v]) => v !== undefined);
    if (single.length > 0 || command.length > 0) {
      const what = single.map(([flag]) => flag as string);
      if (command.length > 0) what.push("a server command after --");
      throw new UserError(
        `--config cannot be combined with ${what.join(", ")}: put allow, private and env in the config file's entries instead`,
      );
    }
    const text = await readFile(values.config, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new UserError(
        `cannot read the config file ${values.config}: ${error.code ?? error.message}`,
      );
    });
    const parsed = parseServersConfig(text);
    if (!parsed.ok) throw new UserError(`\n${formatConfigIssues(parsed.errors, values.config)}`);
    if (parsed.config.servers.size === 0) {
      throw new UserError(`${values.config} has no servers in mcpServers: nothing to serve`);
    }
    return {
      config: parsed.config,
      prefixWithServer: true,
      deadlineSeconds,
      maxCalls,
      runtime,
      preload,
      engine,
      help: false,
      configFile: values.config,
    };
  }

  const [cmd, ...args] = command;
  if (cmd === undefined || cmd === "") {
    throw new UserError("no server to wrap: give --config FILE, or the server's command after --");
  }
  const passEnv: Record<string, string> = {};
  for (const name of values.env ?? []) {
    const value = env[name];
    if (value === undefined)
      throw new UserError(`--env ${name}: ${name} is not set in this environment`);
    passEnv[name] = value;
  }
  return {
    config: singleServerConfig(cmd, args, {
      allow: values.allow ?? null,
      private: values.private ?? [],
      env: passEnv,
    }),
    prefixWithServer: false,
    deadlineSeconds,
    maxCalls,
    runtime,
    preload,
    engine,
    help: false,
    configFile: null,
  };
}

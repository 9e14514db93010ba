import { UserError, writeLine, type CliIO } from "./cli-io.js";
import { imageCommand } from "./commands/image-command.js";
import { configCommand } from "./commands/config-command.js";
import { runCommand } from "./commands/run-command.js";
import { serveCommand } from "./commands/serve-command.js";

type Command = { summary: string; run: (argv: string[], io: CliIO) => Promise<number> };

// One table drives both dispatch and --help, so the help can never list a command
// that does not exist.
const COMMANDS: Record<string, Command> = {
  run: { summary: "run a Python file in the sandbox and print the result", run: runCommand },
  image: { summary: "build the sandbox image or show its status", run: imageCommand },
  serve: {
    summary: "serve run_python over stdio for one server or a config file",
    run: serveCommand,
  },
  config: {
    summary: "check an mcpServers config file without starting anything",
    run: configCommand,
  },
};

export function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
  );
  return [
    "Usage: codemode <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `codemode <command> --help` for a command's options.",
    "CODEMODE_HOME sets the data directory (default: the platform's app data folder).",
  ].join("\n");
}

/** The whole CLI as a function: the thin bin entry and the tests both call this. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    writeLine(io.stdout, helpText());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    writeLine(io.stderr, `codemode: unknown command ${JSON.stringify(name)}\n\n${helpText()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UserError || isParseArgsError(error)) {
      writeLine(io.stderr, `codemode ${name}: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

function isParseArgsError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    ((error as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS")
  );
}

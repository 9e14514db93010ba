import { isParseArgsError, UserError, writeLine, type CliIO } from "./cli-io.js";

type Handler = (argv: string[], io: CliIO) => Promise<number>;
type Command = { summary: string; load: () => Promise<Handler> };

// One table drives both dispatch and --help, so the help can never list a command that
// does not exist. Commands load on demand: `codemode shim` must start fast, without the
// Docker client, the MCP SDK or the UI server that other commands need.
const COMMANDS: Record<string, Command> = {
  run: {
    summary: "run a Python file in the sandbox and print the result",
    load: async () => (await import("./commands/run-command.js")).runCommand,
  },
  image: {
    summary: "build the sandbox image or show its status",
    load: async () => (await import("./commands/image-command.js")).imageCommand,
  },
  serve: {
    summary: "serve run_python over stdio for one server or a config file",
    load: async () => (await import("./commands/serve-command.js")).serveCommand,
  },
  config: {
    summary: "check an mcpServers config file without starting anything",
    load: async () => (await import("./commands/config-command.js")).configCommand,
  },
  engine: {
    summary: "list the container engines found, or choose the one to use",
    load: async () => (await import("./commands/engine-command.js")).engineCommand,
  },
  servers: {
    summary: "list the catalog of well-known servers, or add one from it",
    load: async () => (await import("./commands/servers-command.js")).serversCommand,
  },
  daemon: {
    summary: "start Code Mode headless (--ui adds the browser UI)",
    load: async () => (await import("./commands/daemon-command.js")).daemonCommand,
  },
  ui: {
    summary: "open the browser UI of the running daemon with a new one-time link",
    load: async () => (await import("./commands/ui-command.js")).uiCommand,
  },
  shim: {
    summary: "pipe stdio to the running Code Mode (what MCP clients start)",
    load: async () => {
      const { shimCommand } = await import("./commands/shim-command.js");
      return (argv, io) => shimCommand(argv, io);
    },
  },
  audit: {
    summary: "tail, verify or export the audit log",
    load: async () => (await import("./commands/audit-command.js")).auditCommand,
  },
  workspace: {
    summary: "list the clients' workspaces, put files in, get them out, delete them",
    load: async () => (await import("./commands/workspace-command.js")).workspaceCommand,
  },
  token: {
    summary: "print the HTTP header with this install's token (a client's headers helper)",
    load: async () => (await import("./commands/token-command.js")).tokenCommand,
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
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    writeLine(io.stderr, `codemode: unknown command ${JSON.stringify(name)}\n\n${helpText()}`);
    return 2;
  }
  try {
    const handler = await command.load();
    return await handler(rest, io);
  } catch (error) {
    if (error instanceof UserError || isParseArgsError(error)) {
      writeLine(io.stderr, `codemode ${name}: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

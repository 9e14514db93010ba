import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { formatConfigIssues, parseServersConfig } from "../../servers/config/server-config.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";

export const CONFIG_HELP = `Usage: codemode config check FILE

Checks an mcpServers config file without starting anything: prints every problem with
the entry and key it is about, or what would be served.`;

export async function configCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: "boolean" } },
    allowPositionals: true,
  });
  if (values.help || positionals[0] !== "check") {
    writeLine(io.stdout, CONFIG_HELP);
    return values.help ? 0 : 2;
  }
  const file = positionals[1];
  if (file === undefined) throw new UserError("config check takes the config FILE to check");
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UserError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  const parsed = parseServersConfig(text);
  if (!parsed.ok) {
    writeLine(io.stdout, formatConfigIssues(parsed.errors, file));
    return 1;
  }
  const lines = [`${file}: ${parsed.config.servers.size} server(s), tools named server__tool`];
  for (const [name, entry] of parsed.config.servers) {
    const privacy =
      entry.private === true
        ? "all tools private"
        : entry.private === false || entry.private.length === 0
          ? "no private tools"
          : `private: ${entry.private.join(", ")}`;
    lines.push(
      `  ${name}: ${[entry.command, ...entry.args].join(" ")}`,
      `    tools: ${entry.allow === null ? "all" : entry.allow.join(", ")}; ${privacy}`,
      `    env: ${Object.keys(entry.env).join(", ") || "(none)"}${entry.secretEnv.length ? ` (secret: ${entry.secretEnv.join(", ")})` : ""}`,
    );
  }
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

import { parseArgs } from "node:util";
import { TokenError } from "../../ingress/local-access/token.js";
import { tokenHeaderJson } from "../../ingress/local-access/token-header.js";
import { dataDir } from "../../util/paths.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";

export const TOKEN_HELP = `Usage: codemode token header

Prints the HTTP header that carries this install's token, as JSON:
{"Authorization":"Bearer <token>"}. A client that runs it when it connects (Claude Code's
headersHelper, which the Clients page's command sets) reads the token from the token file, so
the token is in no command line and in no file of the client's.`;

export async function tokenCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: "boolean" } },
    allowPositionals: true,
  });
  if (values.help || positionals.length !== 1 || positionals[0] !== "header") {
    writeLine(values.help ? io.stdout : io.stderr, TOKEN_HELP);
    return values.help ? 0 : 2;
  }
  try {
    writeLine(io.stdout, await tokenHeaderJson(dataDir(io.env)));
  } catch (error) {
    if (error instanceof TokenError) throw new UserError(error.message);
    throw error;
  }
  return 0;
}

import { parseArgs } from "node:util";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { SHIM_EXIT } from "../../ingress/local-access/local-access-constants.js";
import { dataDir } from "../../util/paths.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { openInBrowser } from "../open-browser.js";
import { requestUiLink } from "../ui-link-request.js";

const TTL_S = HOST_LIMITS.uiTicketTtlMs / 1000;

export const UI_HELP = `Usage: codemode ui open [--print]

Asks the running \`codemode daemon --ui\` for a new link to its UI and opens it in your
browser; the link is printed on stdout too. A link works once, within ${TTL_S} s: the page
it opens stays signed in (reloads too) until Code Mode stops.

  --print   only print the link, do not open a browser`;

/** How `ui open` opens a link (tests record it instead). */
export type OpenLink = (url: string, env: NodeJS.ProcessEnv) => boolean;

export async function uiCommand(
  argv: string[],
  io: CliIO,
  open: OpenLink = openInBrowser,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { print: { type: "boolean" }, help: { type: "boolean" } },
    allowPositionals: true,
  });
  if (values.help || positionals[0] !== "open" || positionals.length > 1) {
    writeLine(values.help ? io.stdout : io.stderr, UI_HELP);
    return values.help ? 0 : 2;
  }
  const home = dataDir(io.env);
  const answer = await requestUiLink(home, io.env);
  if (answer.kind === "not-running") {
    writeLine(
      io.stderr,
      `codemode ui: Code Mode is not running (data directory ${home}): start it with \`codemode daemon --ui\``,
    );
    return SHIM_EXIT.notRunning;
  }
  if (answer.kind === "failed") throw new UserError(answer.message);
  writeLine(io.stdout, answer.url);
  if (values.print) return 0;
  writeLine(
    io.stderr,
    open(answer.url, io.env)
      ? `codemode ui: opened Code Mode in your browser (the link works once, within ${TTL_S} s)`
      : `codemode ui: no browser to open here: open the link above in a browser on this computer within ${TTL_S} s`,
  );
  return 0;
}

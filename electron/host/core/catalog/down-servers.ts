import { maskSecrets } from "../secrets/secret-mask.js";
import { serverNamePrefix, toPythonName } from "./python-names.js";
import { cutCodePoints, oneLine } from "../../util/text-cut.js";
import type { ServerState } from "../ports/server-state.js";

/**
 * Why a server is not running, as the model reads it in the run_python description and in
 * the ToolError a call to one of its tools raises: one line cut to this many characters.
 */
export const DOWN_REASON_MAX_CHARS = 300;

/** A configured server whose tools the code cannot have, and why, as the model reads it. */
export interface DownServer {
  server: string;
  /** How its tools' names start in the code (`server__`), or null when names carry no server. */
  prefix: string | null;
  /** Its namespace in the code (`server`, as catalog-builder.ts names it); null likewise. */
  namespace: string | null;
  /** One line, secrets masked, at most DOWN_REASON_MAX_CHARS. */
  reason: string;
  /**
   * Starting for the first time, with no failure yet: the code is told to try again, but the
   * description leaves it out, so adding a server changes what tools/list returns once.
   */
  firstStart: boolean;
}

/** What the engine reads of one wrapped server. */
export interface ServerFacts {
  name: string;
  info: ServerState;
  toolCount: number;
}

/** The first line of a start error, without the `Server "name" ` the server's name repeats. */
function firstLine(error: string, server: string): string {
  const end = error.indexOf("\n");
  const line = end === -1 ? error : error.slice(0, end);
  const own = `Server ${JSON.stringify(server)} `;
  return line.startsWith(own) ? line.slice(own.length) : line;
}

/**
 * The last line the server wrote to stderr before it failed, as its start error carries it
 * (after "Last lines of stderr:"): from the error, not the live tail, so a restart in
 * progress does not change the reason.
 */
function lastOutput(error: string): string | null {
  const marker = "\nLast lines of stderr:\n";
  const at = error.indexOf(marker);
  if (at === -1) return null;
  const lines = error.slice(at + marker.length).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = oneLine(lines[i] ?? "");
    if (line !== "") return line;
  }
  return null;
}

/**
 * Why a server with no tools is down: its start error and the last line it wrote to stderr
 * (what usually names the cause: "npx: command not found", a missing key). Server text, so
 * secrets are masked before it is cut, and it is kept to one line.
 */
export function downReason(facts: ServerFacts, secrets: readonly string[]): string {
  let reason: string;
  if (facts.info.lastError !== null) {
    reason = firstLine(facts.info.lastError, facts.name);
    const output = lastOutput(facts.info.lastError);
    if (output !== null) reason += `; its last output: ${output}`;
  } else if (facts.info.status === "starting") {
    reason = "still starting; try again shortly";
  } else {
    reason = "not started";
  }
  return cutCodePoints(oneLine(maskSecrets(reason, secrets)), DOWN_REASON_MAX_CHARS);
}

/**
 * Configured servers whose tools are missing from the catalog because they are not running:
 * never listed any tool and are not ready. A server that crashed after listing keeps its tools
 * (a call then says it is restarting), so it is not listed here.
 */
export function downServers(
  servers: readonly ServerFacts[],
  secrets: readonly string[],
  prefixWithServer: boolean,
): DownServer[] {
  return servers
    .filter((facts) => facts.toolCount === 0 && facts.info.status !== "ready")
    .map((facts) => ({
      server: facts.name,
      prefix: prefixWithServer ? serverNamePrefix(facts.name) : null,
      namespace: prefixWithServer ? toPythonName(facts.name) : null,
      reason: downReason(facts, secrets),
      firstStart: facts.info.status === "starting" && facts.info.lastError === null,
    }));
}

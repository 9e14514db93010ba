// "Try it": start a server once with the settings the user is about to save, list its tools
// under the names the code will use, then stop it. A server that fails is an answer, not an
// error: the result carries its last stderr lines and a hint for the common causes, in words
// a non-developer can act on. Nothing here touches the saved config or the running servers.
import { stat } from "node:fs/promises";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { TryServerView } from "../../../shared/api/api-views.js";
import { entrySecrets, maskSecrets } from "../core/secrets/secret-mask.js";
import { pythonNameFor } from "../core/catalog/python-names.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";
import { WrappedServer, type WrappedServerOptions } from "./wrapped-server.js";

/** Tools listed in the result; the count still covers all of them. */
export const TRY_TOOLS_SHOWN_MAX = 200;

/**
 * Bound on the whole try (start + listing). As generous as a real start, since a first
 * start through npx, uvx or docker may download the server.
 */
export const TRY_TIMEOUT_MS = 60_000;

/** A tool description shown in the result is cut to this. */
export const TRY_DESCRIPTION_MAX_CHARS = 300;

export interface TryOptions {
  /** The server's name: the code's names are prefixed with it. */
  name: string;
  timeoutMs?: number;
  /** For tests: how the child is started. */
  transportFactory?: WrappedServerOptions["transportFactory"];
  /** The PATH the running servers get, so a try finds what a saved server would. */
  path?: string;
  now?: () => number;
  /** Aborted when the app stops: the try ends at once, its server stopped. */
  signal?: AbortSignal;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Absolute paths among the args (alone or as FLAG=PATH), the ones a user typed as folders or files. */
function pathArgs(args: readonly string[]): string[] {
  return args
    .map((arg) =>
      arg.startsWith("-") && arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg,
    )
    .filter((arg) => arg.startsWith("/") || /^[A-Za-z]:[\\/]/.test(arg));
}

async function missingPaths(entry: ServerEntry): Promise<string[]> {
  const candidates = [...pathArgs(entry.args), ...pathArgs(Object.values(entry.env))];
  const missing: string[] = [];
  for (const candidate of candidates) {
    const found = await stat(candidate).then(
      () => true,
      () => false,
    );
    if (!found) missing.push(candidate);
  }
  return missing;
}

/**
 * The most likely cause of a failed start, from what we know (the error, the entry, the
 * file system) and what the server said. Plain substring checks over the server's text:
 * linear, whatever it wrote.
 */
export async function hintFor(
  entry: ServerEntry,
  error: string,
  stderr: readonly string[],
): Promise<string | null> {
  const said = `${error}\n${stderr.join("\n")}`.toLowerCase();
  if (said.includes("enoent") && said.includes("spawn")) {
    const path = getDefaultEnvironment().PATH ?? "";
    const from =
      entry.command === "npx"
        ? " (npx comes with Node.js)"
        : entry.command === "uvx"
          ? " (uvx comes with uv)"
          : entry.command === "docker"
            ? " (docker comes with Docker Desktop or Docker Engine)"
            : "";
    return `"${entry.command}" was not found on the PATH servers get${from}. Install it, or give its full path. PATH: ${path}`;
  }
  const missing = await missingPaths(entry);
  if (missing.length > 0) {
    return `${missing.length === 1 ? "This folder or file does" : "These folders or files do"} not exist: ${missing.join(", ")}`;
  }
  if (entry.command === "docker" && said.includes("cannot connect to the docker daemon")) {
    return "Docker is not running: start Docker Desktop (or the Docker service) and try again.";
  }
  const named = Object.keys(entry.env).filter((key) => said.includes(key.toLowerCase()));
  if (named.length > 0) {
    return `The server complains about ${named.join(", ")}: check the value you gave.`;
  }
  if (
    ["unauthorized", "401", "invalid token", "api key", "authentication"].some((w) =>
      said.includes(w),
    )
  ) {
    return "The server refused the credentials: check the token or key you gave, and that it has not expired.";
  }
  if (said.includes("timed out") || said.includes("timeout")) {
    return "The server did not answer in time. A first start may download it; try again once.";
  }
  if (said.includes("connection closed")) {
    return "The server stopped right after it started: its last lines below usually say why.";
  }
  return null;
}

/** Starts the server from `entry`, lists its tools and stops it; failures come back as data. */
export async function tryServer(entry: ServerEntry, options: TryOptions): Promise<TryServerView> {
  const now = options.now ?? Date.now;
  const started = now();
  const timeoutMs = options.timeoutMs ?? TRY_TIMEOUT_MS;
  const secrets = entrySecrets(entry);
  const scrub = (text: string): string => maskSecrets(text, secrets);
  const server = new WrappedServer(options.name, entry, {
    startTimeoutMs: timeoutMs,
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.transportFactory ? { transportFactory: options.transportFactory } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      server.start(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s (timed out)`)),
          timeoutMs,
        );
        onAbort = () => reject(new Error("Code Mode stopped during the try"));
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    const tools = server.tools;
    return {
      ok: true,
      toolCount: tools.length,
      tools: tools.slice(0, TRY_TOOLS_SHOWN_MAX).map((tool) => ({
        name: tool.name,
        pyName: pythonNameFor(options.name, tool.name, true),
        description: scrub(cut(tool.description ?? "", TRY_DESCRIPTION_MAX_CHARS)),
      })),
      stderrTail: server.stderrTail.map(scrub),
      elapsedMs: now() - started,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const stderrTail = [...server.stderrTail];
    return {
      ok: false,
      error: scrub(message),
      hint: await hintFor(entry, message, stderrTail).then((hint) =>
        hint === null ? null : scrub(hint),
      ),
      stderrTail: stderrTail.map(scrub),
      elapsedMs: now() - started,
    };
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    await server.close().catch(() => undefined);
  }
}

// The engine the Docker CLI would use, read the way it reads it: DOCKER_HOST first (with
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH), else the context named by DOCKER_CONTEXT or by
// `currentContext` in config.json (DOCKER_CONFIG or ~/.docker), whose endpoint and TLS files
// live under contexts/meta and contexts/tls, in a folder named by the SHA-256 of its name.
// Pure: files are read through `readText`, so a test gives a fake file system.
import { createHash } from "node:crypto";
import path from "node:path";
import {
  parseEngineUrl,
  tlsFilesIn,
  type EngineAddress,
  type TlsChoice,
} from "./engine-address.js";

/** config.json and a context's meta.json above this are not read (they are a few hundred bytes). */
export const DOCKER_CONFIG_MAX_BYTES = 256 * 1024;

export interface DockerCliEnv {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** The file's text, or null when there is none. */
  readText(file: string): string | null;
  exists(file: string): boolean;
}

/** Where the Docker CLI points, and from which of its settings. */
export type DockerCliChoice =
  | { from: "DOCKER_HOST"; address: EngineAddress }
  | { from: "context"; context: string; address: EngineAddress }
  /** The default context: the CLI's own default socket (the detection's first candidates). */
  | { from: "default" }
  | { from: "DOCKER_HOST" | "context"; problem: string };

/** Docker's config folder: DOCKER_CONFIG or ~/.docker. */
export function dockerConfigDir(cli: Pick<DockerCliEnv, "env" | "home">): string {
  return cli.env.DOCKER_CONFIG || path.join(cli.home, ".docker");
}

function readJson(cli: DockerCliEnv, file: string): unknown {
  const text = cli.readText(file);
  if (text === null || text.length > DOCKER_CONFIG_MAX_BYTES) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The current context's name: DOCKER_CONTEXT, else config.json's currentContext, else "default". */
export function currentContextName(cli: DockerCliEnv): string {
  if (cli.env.DOCKER_CONTEXT) return cli.env.DOCKER_CONTEXT;
  const config = readJson(cli, path.join(dockerConfigDir(cli), "config.json"));
  const name = field(config, "currentContext");
  return typeof name === "string" && name !== "" ? name : "default";
}

/** The folder name Docker keeps a context's files under. */
export function contextDigest(name: string): string {
  return createHash("sha256").update(name).digest("hex");
}

/**
 * DOCKER_HOST with Docker's TLS variables: TLS when DOCKER_TLS_VERIFY (or DOCKER_TLS) is set,
 * non-empty. DOCKER_TLS alone asks the Docker CLI for TLS without checking the engine's
 * certificate; Code Mode checks it all the same.
 */
function envTls(cli: DockerCliEnv): TlsChoice | null {
  if (!cli.env.DOCKER_TLS_VERIFY && !cli.env.DOCKER_TLS) return null;
  return { verify: true, certDir: cli.env.DOCKER_CERT_PATH || dockerConfigDir(cli) };
}

/** A context's endpoint, with its TLS files when the context holds them. */
export function contextAddress(
  cli: DockerCliEnv,
  name: string,
): { address: EngineAddress } | { problem: string } {
  const dir = dockerConfigDir(cli);
  const digest = contextDigest(name);
  const meta = readJson(cli, path.join(dir, "contexts", "meta", digest, "meta.json"));
  if (meta === null) {
    return {
      problem: `the Docker context ${JSON.stringify(name)} was not found (docker context ls lists them)`,
    };
  }
  const endpoint = field(field(meta, "Endpoints"), "docker");
  const host = field(endpoint, "Host");
  if (typeof host !== "string" || host === "") {
    return { problem: `the Docker context ${JSON.stringify(name)} names no engine` };
  }
  if (field(endpoint, "SkipTLSVerify") === true) {
    return {
      problem: `the Docker context ${JSON.stringify(name)} skips TLS verification, which Code Mode never does; give it the engine's CA (docker context update --docker "host=...,ca=...,cert=...,key=...")`,
    };
  }
  const tlsDir = path.join(dir, "contexts", "tls", digest, "docker");
  const hasTls = cli.exists(tlsFilesIn(tlsDir).ca);
  const parsed = parseEngineUrl(host, hasTls ? { verify: true, certDir: tlsDir } : null);
  return parsed.ok
    ? { address: parsed.address }
    : { problem: `the Docker context ${JSON.stringify(name)}: ${parsed.problem}` };
}

/** What the Docker CLI would use, in its own order (DOCKER_HOST beats any context). */
export function dockerCliChoice(cli: DockerCliEnv): DockerCliChoice {
  const host = cli.env.DOCKER_HOST;
  if (host) {
    const parsed = parseEngineUrl(host, envTls(cli));
    return parsed.ok
      ? { from: "DOCKER_HOST", address: parsed.address }
      : { from: "DOCKER_HOST", problem: `DOCKER_HOST: ${parsed.problem}` };
  }
  const name = currentContextName(cli);
  if (name === "default") return { from: "default" };
  const found = contextAddress(cli, name);
  return "address" in found
    ? { from: "context", context: name, address: found.address }
    : { from: "context", problem: found.problem };
}

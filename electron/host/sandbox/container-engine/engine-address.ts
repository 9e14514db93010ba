// Where a Docker-API engine is, as Docker names it: `unix:///path`, `npipe:////./pipe/name`,
// `tcp://host:port` (TLS when Docker's TLS settings say so), `ssh://user@host[:port]`. Pure: the
// files a TLS address needs are named here and read when connecting (engine-connect.ts).

/** A URL this long is not an engine address: it is cut before it is parsed. */
export const ENGINE_URL_MAX_CHARS = 500;
/** Docker's ports when an address names none: 2376 with TLS, 2375 without. */
export const DOCKER_TLS_PORT = 2376;
export const DOCKER_PLAIN_PORT = 2375;
export const SSH_PORT = 22;

/** The client certificate files of a TLS engine, as Docker keeps them in one folder. */
export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

export type EngineAddress =
  | { kind: "unix"; path: string; url: string }
  | { kind: "npipe"; path: string; url: string }
  /** `tls` null: plain HTTP (Docker's own default for tcp:// without DOCKER_TLS_VERIFY). */
  | { kind: "tcp"; host: string; port: number; tls: TlsFiles | null; url: string }
  /**
   * Over SSH: `docker system dial-stdio` on the remote side, as the Docker CLI does; or, when
   * the URL names a socket path (Podman's form, `ssh://user@host/run/podman/podman.sock`),
   * that socket forwarded through the connection.
   */
  | {
      kind: "ssh";
      user: string | null;
      host: string;
      port: number;
      socket: string | null;
      url: string;
    };

export type AddressParse = { ok: true; address: EngineAddress } | { ok: false; problem: string };

/** How TLS is asked for: Docker's DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, or a context's files. */
export interface TlsChoice {
  verify: boolean;
  /** The folder holding ca.pem, cert.pem and key.pem. */
  certDir: string;
}

function joinPath(dir: string, file: string): string {
  return dir.endsWith("/") || dir.endsWith("\\") ? dir + file : `${dir}/${file}`;
}

export function tlsFilesIn(dir: string): TlsFiles {
  return {
    ca: joinPath(dir, "ca.pem"),
    cert: joinPath(dir, "cert.pem"),
    key: joinPath(dir, "key.pem"),
  };
}

function isDigits(text: string): boolean {
  if (text === "") return false;
  for (const ch of text) if (ch < "0" || ch > "9") return false;
  return true;
}

/** `host`, `host:port`, `[v6]:port` → host and port (the default when none is named). */
function hostAndPort(
  text: string,
  defaultPort: number,
): { host: string; port: number } | { problem: string } {
  let host = text;
  let portText = "";
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) return { problem: "an IPv6 host must be closed with ]" };
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return { problem: `unexpected ${rest}` };
    portText = rest.slice(1);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon !== -1) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
  }
  if (host === "") return { problem: "it names no host" };
  if (portText === "") return { host, port: defaultPort };
  const port = Number(portText);
  if (!isDigits(portText) || port < 1 || port > 65_535) {
    return { problem: `${JSON.stringify(portText)} is not a port` };
  }
  return { host, port };
}

/**
 * Parses an engine URL the way the Docker CLI reads DOCKER_HOST. `tls` says whether (and with
 * which files) a tcp:// address is reached over TLS; without it, tcp:// is plain HTTP, as for
 * Docker, and `https://` asks for TLS with the files of `tls` (verified: never without).
 */
export function parseEngineUrl(raw: string, tls: TlsChoice | null = null): AddressParse {
  const text = raw.trim().slice(0, ENGINE_URL_MAX_CHARS);
  const scheme = text.indexOf("://");
  if (scheme === -1) {
    if (text.startsWith("/"))
      return { ok: true, address: { kind: "unix", path: text, url: `unix://${text}` } };
    return {
      ok: false,
      problem: `${JSON.stringify(text)} is not an engine address: use unix:///path, npipe:////./pipe/name, tcp://host:port or ssh://user@host`,
    };
  }
  const kind = text.slice(0, scheme).toLowerCase();
  const rest = text.slice(scheme + 3);
  if (kind === "unix") {
    if (!rest.startsWith("/"))
      return { ok: false, problem: `${text}: a unix:// address needs an absolute path` };
    return { ok: true, address: { kind: "unix", path: rest, url: text } };
  }
  if (kind === "npipe") {
    // npipe:////./pipe/docker_engine → //./pipe/docker_engine
    let start = 0;
    while (rest[start] === "/") start++;
    const path = `//${rest.slice(start)}`;
    return { ok: true, address: { kind: "npipe", path, url: text } };
  }
  if (kind === "tcp" || kind === "https" || kind === "http") {
    const slash = rest.indexOf("/");
    const hostPart = slash === -1 ? rest : rest.slice(0, slash);
    if (slash !== -1 && rest.slice(slash) !== "/") {
      return { ok: false, problem: `${text}: a tcp:// address takes no path` };
    }
    const useTls = kind === "https" || (kind === "tcp" && tls !== null);
    if (kind === "https" && tls === null) {
      return {
        ok: false,
        problem: `${text}: TLS needs the engine's CA and a client certificate (set DOCKER_CERT_PATH to the folder holding ca.pem, cert.pem and key.pem)`,
      };
    }
    const parsed = hostAndPort(hostPart, useTls ? DOCKER_TLS_PORT : DOCKER_PLAIN_PORT);
    if ("problem" in parsed) return { ok: false, problem: `${text}: ${parsed.problem}` };
    return {
      ok: true,
      address: {
        kind: "tcp",
        host: parsed.host,
        port: parsed.port,
        tls: useTls && tls ? tlsFilesIn(tls.certDir) : null,
        url: text,
      },
    };
  }
  if (kind === "ssh") {
    const slash = rest.indexOf("/");
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    const socket = slash === -1 || rest.slice(slash) === "/" ? null : rest.slice(slash);
    const at = authority.lastIndexOf("@");
    const user = at === -1 ? null : authority.slice(0, at);
    if (user === "") return { ok: false, problem: `${text}: the user before @ is empty` };
    if (user !== null && user.includes(":")) {
      return {
        ok: false,
        problem: `${text}: a password in the address is not supported; use a key`,
      };
    }
    const parsed = hostAndPort(authority.slice(at + 1), SSH_PORT);
    if ("problem" in parsed) return { ok: false, problem: `${text}: ${parsed.problem}` };
    return {
      ok: true,
      address: { kind: "ssh", user, host: parsed.host, port: parsed.port, socket, url: text },
    };
  }
  return {
    ok: false,
    problem: `${text}: unknown scheme ${JSON.stringify(kind)}; use unix://, npipe://, tcp:// or ssh://`,
  };
}

/** The address as shown to a person (never a key or certificate, only where the engine is). */
export function addressLabel(address: EngineAddress): string {
  if (address.kind === "tcp") {
    const host = address.host.includes(":") ? `[${address.host}]` : address.host;
    return `tcp://${host}:${address.port}${address.tls ? " (TLS)" : ""}`;
  }
  return address.url;
}

/** Whether the address reaches another machine (latency, shared engine) rather than this one. */
export function isRemote(address: EngineAddress): boolean {
  return address.kind === "tcp" || address.kind === "ssh";
}

// OpenSSH's known_hosts, read to check an engine's SSH host key as `ssh` would: plain and hashed
// (`|1|salt|hash`) host names, `[host]:port` for ports other than 22, `*` and `?` patterns,
// `!` negations and `@revoked` keys. A host that is not listed, or listed with another key, is
// refused: nothing connects to an engine whose host key was not checked. Pure.
import { createHmac } from "node:crypto";

/** Lines of a known_hosts file read at most (a file this long is not a user's). */
export const KNOWN_HOSTS_MAX_LINES = 20_000;
/** A host pattern list longer than this is skipped. */
const PATTERNS_MAX_CHARS = 4_096;

export type HostKeyVerdict =
  { ok: true } | { ok: false; reason: "unknown" | "changed" | "revoked"; line?: number };

/** How known_hosts names a host: `host` on port 22, `[host]:port` otherwise. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** `*` any run, `?` one character; linear (two pointers with one backtrack point). */
export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === "?" || pattern[p] === text[t])) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      mark = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

function hashedMatch(entry: string, name: string): boolean {
  // |1|base64(salt)|base64(hmac-sha1(salt, name))
  const parts = entry.split("|");
  if (parts.length !== 4 || parts[1] !== "1") return false;
  const salt = Buffer.from(parts[2] ?? "", "base64");
  const digest = createHmac("sha1", salt).update(name).digest("base64");
  return digest === parts[3];
}

/** Whether a line's host patterns name this host (a matching `!pattern` excludes it). */
function patternsMatch(patterns: string, name: string): boolean {
  if (patterns.length > PATTERNS_MAX_CHARS) return false;
  if (patterns.startsWith("|")) return hashedMatch(patterns, name);
  let matched = false;
  for (const raw of patterns.split(",")) {
    const negated = raw.startsWith("!");
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (!globMatch(pattern, name.toLowerCase())) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/**
 * Checks `key` (the raw host key blob, as the SSH protocol carries it) for `host`:`port` against
 * the text of known_hosts files. Any listed key of the host that matches is enough; a revoked
 * one is refused whatever else is listed.
 */
export function checkHostKey(
  files: readonly string[],
  host: string,
  port: number,
  key: Buffer,
): HostKeyVerdict {
  const name = knownHostName(host, port);
  const blob = key.toString("base64");
  let listed: number | undefined;
  let trusted = false;
  let lineNo = 0;
  for (const text of files) {
    const lines = text.split("\n", KNOWN_HOSTS_MAX_LINES);
    for (const rawLine of lines) {
      lineNo++;
      const line = rawLine.trim();
      if (line === "" || line.startsWith("#")) continue;
      const fields = line.split(" ").filter((f) => f !== "");
      let marker: string | null = null;
      if (fields[0]?.startsWith("@")) marker = fields.shift() ?? null;
      const [patterns, , keyText] = fields;
      if (patterns === undefined || keyText === undefined) continue;
      if (!patternsMatch(patterns, name)) continue;
      if (marker === "@revoked") {
        if (keyText === blob) return { ok: false, reason: "revoked", line: lineNo };
        continue;
      }
      // Certificate authorities are not followed: only a host's own key is trusted.
      if (marker !== null) continue;
      listed ??= lineNo;
      if (keyText === blob) trusted = true;
    }
  }
  if (trusted) return { ok: true };
  return listed === undefined
    ? { ok: false, reason: "unknown" }
    : { ok: false, reason: "changed", line: listed };
}

/** What to tell the user when a host key was refused. */
export function hostKeyMessage(
  verdict: Exclude<HostKeyVerdict, { ok: true }>,
  host: string,
  port: number,
  where: string,
): string {
  const sshCommand = port === 22 ? `ssh ${host}` : `ssh -p ${port} ${host}`;
  if (verdict.reason === "unknown") {
    return `the SSH host key of ${knownHostName(host, port)} is not in ${where}: connect once with \`${sshCommand}\` to check and accept it, then try again`;
  }
  if (verdict.reason === "revoked") {
    return `the SSH host key of ${knownHostName(host, port)} is marked @revoked in ${where} (line ${verdict.line}): refusing to connect`;
  }
  return `the SSH host key of ${knownHostName(host, port)} does not match the one in ${where} (line ${verdict.line}): refusing to connect (the server was reinstalled, or someone is in between)`;
}

// What a failed connection to an engine means, in words a person can act on. A certificate or
// host key that does not verify is said to be refused: never "not running", and never retried
// any looser way.
import { SshEngineError } from "./ssh-transport.js";
import { EngineConnectError } from "./engine-connect.js";

/** Node's codes for a TLS peer whose certificate did not verify. */
const TLS_REFUSALS = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function codeOf(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether the engine was refused because it could not prove who it is. */
export function isTrustRefusal(error: unknown): boolean {
  return (error instanceof SshEngineError && error.trust) || TLS_REFUSALS.has(codeOf(error));
}

/** One line saying why the engine at `label` could not be used. */
export function engineProblem(error: unknown, label: string): string {
  if (error instanceof SshEngineError || error instanceof EngineConnectError) return error.message;
  const code = codeOf(error);
  if (TLS_REFUSALS.has(code)) {
    return `the engine at ${label} presented a certificate that does not verify (${code}): refusing to connect. Check that DOCKER_CERT_PATH (or the context) holds the CA that signed the engine's certificate`;
  }
  if (code === "ENOENT") return `no engine socket at ${label}`;
  if (code === "ECONNREFUSED") return `nothing answers at ${label} (the engine is not running)`;
  if (code === "EACCES" || code === "EPERM") {
    return `permission denied on ${label}: add your user to the group that owns it (for Docker: sudo usermod -aG docker $USER, then log in again)`;
  }
  const message = messageOf(error);
  if (message.includes("Client sent an HTTP request to an HTTPS server")) {
    return `the engine at ${label} speaks TLS: set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH to the folder holding ca.pem, cert.pem and key.pem`;
  }
  if (code === "ECONNRESET" || code === "EPROTO" || message.includes("wrong version number")) {
    return `the engine at ${label} closed the connection (${code || message.slice(0, 120)}): it may expect TLS, or a client certificate it trusts`;
  }
  return `the engine at ${label} did not answer: ${message.slice(0, 300)}`;
}

// Certificates for a TLS engine, made by the test with openssl: a CA, the engine's certificate
// for 127.0.0.1 signed by it, and a client certificate signed by it; laid out as Docker keeps
// them (ca.pem, cert.pem, key.pem for the client; server-cert.pem, server-key.pem for dockerd).
// A second, unrelated CA stands for the wrong one.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface TlsMaterial {
  /** The folder DOCKER_CERT_PATH names: ca.pem, cert.pem, key.pem. */
  clientDir: string;
  /** The same client certificate, but with a CA that did not sign the engine's certificate. */
  wrongCaDir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
}

function openssl(cwd: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** Makes the certificates under `dir` (one openssl run each; well under a second in all). */
export function makeTlsMaterial(dir: string): TlsMaterial {
  mkdirSync(dir, { recursive: true });
  const ca = (name: string): void =>
    openssl(
      dir,
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      `${name}-key.pem`,
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
    );
  ca("ca");
  ca("wrong-ca");
  const signed = (name: string, cn: string, ext: string): void => {
    openssl(
      dir,
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      `${name}-key.pem`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${cn}`,
    );
    writeFileSync(path.join(dir, `${name}.ext`), ext);
    openssl(
      dir,
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca-key.pem",
      "-CAcreateserial",
      "-out",
      `${name}-cert.pem`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    );
  };
  signed("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  signed("client", "codemode-test-client", "extendedKeyUsage=clientAuth\n");
  const clientDir = path.join(dir, "client");
  const wrongCaDir = path.join(dir, "client-wrong-ca");
  for (const [target, caFile] of [
    [clientDir, "ca.pem"],
    [wrongCaDir, "wrong-ca.pem"],
  ] as const) {
    mkdirSync(target, { recursive: true });
    execFileSync("cp", [path.join(dir, caFile), path.join(target, "ca.pem")]);
    execFileSync("cp", [path.join(dir, "client-cert.pem"), path.join(target, "cert.pem")]);
    execFileSync("cp", [path.join(dir, "client-key.pem"), path.join(target, "key.pem")]);
  }
  return {
    clientDir,
    wrongCaDir,
    ca: path.join(dir, "ca.pem"),
    serverCert: path.join(dir, "server-cert.pem"),
    serverKey: path.join(dir, "server-key.pem"),
  };
}

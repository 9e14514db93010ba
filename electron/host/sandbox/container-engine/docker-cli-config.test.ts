import { describe, expect, it } from "vitest";
import {
  contextDigest,
  currentContextName,
  dockerCliChoice,
  type DockerCliEnv,
} from "./docker-cli-config.js";

/** A fake machine: files by path, and the environment. */
function cli(env: Record<string, string>, files: Record<string, string> = {}): DockerCliEnv {
  return {
    env,
    home: "/home/u",
    readText: (file) => files[file] ?? null,
    exists: (file) => file in files,
  };
}

const meta = (name: string, host: string, skip = false) => ({
  [`/home/u/.docker/contexts/meta/${contextDigest(name)}/meta.json`]: JSON.stringify({
    Name: name,
    Endpoints: { docker: { Host: host, SkipTLSVerify: skip } },
  }),
});

describe("the engine the Docker CLI would use", () => {
  it("DOCKER_HOST first, TLS when DOCKER_TLS_VERIFY is set, files from DOCKER_CERT_PATH", () => {
    const choice = dockerCliChoice(
      cli({
        DOCKER_HOST: "tcp://b:2376",
        DOCKER_TLS_VERIFY: "1",
        DOCKER_CERT_PATH: "/certs",
        DOCKER_CONTEXT: "x",
      }),
    );
    expect(choice).toMatchObject({
      from: "DOCKER_HOST",
      address: { kind: "tcp", tls: { ca: "/certs/ca.pem" } },
    });
    expect(dockerCliChoice(cli({ DOCKER_HOST: "tcp://b:2376" }))).toMatchObject({
      address: { tls: null },
    });
    // DOCKER_TLS alone asks the CLI for TLS unverified: Code Mode verifies it anyway.
    expect(dockerCliChoice(cli({ DOCKER_HOST: "tcp://b", DOCKER_TLS: "1" }))).toMatchObject({
      address: { port: 2376, tls: { ca: "/home/u/.docker/ca.pem" } },
    });
  });

  it("else DOCKER_CONTEXT, else config.json's currentContext; its TLS files when it has them", () => {
    const digest = contextDigest("prod");
    const files = {
      "/home/u/.docker/config.json": JSON.stringify({ currentContext: "prod" }),
      ...meta("prod", "tcp://prod.example:2376"),
      [`/home/u/.docker/contexts/tls/${digest}/docker/ca.pem`]: "CA",
    };
    expect(currentContextName(cli({}, files))).toBe("prod");
    expect(dockerCliChoice(cli({}, files))).toMatchObject({
      from: "context",
      context: "prod",
      address: {
        host: "prod.example",
        tls: { ca: `/home/u/.docker/contexts/tls/${digest}/docker/ca.pem` },
      },
    });
    expect(dockerCliChoice(cli({ DOCKER_CONTEXT: "default" }, files))).toEqual({ from: "default" });
    expect(dockerCliChoice(cli({}, {}))).toEqual({ from: "default" });
  });

  it("a missing context, or one that skips TLS verification, is a problem, not a fallback", () => {
    const problem = (choice: ReturnType<typeof dockerCliChoice>): string =>
      "problem" in choice ? choice.problem : "";
    expect(problem(dockerCliChoice(cli({ DOCKER_CONTEXT: "gone" })))).toContain("not found");
    expect(
      problem(dockerCliChoice(cli({ DOCKER_CONTEXT: "lax" }, meta("lax", "tcp://x:2376", true)))),
    ).toContain("skips TLS verification");
    expect(problem(dockerCliChoice(cli({ DOCKER_HOST: "ftp://x" })))).toContain("DOCKER_HOST");
  });
});

// The built CLI against engines other than the machine's Docker: an engine error ends `codemode
// run` with the engine's words in one line, and the process exits (a fault injected in front of
// Docker, and a Podman whose runtime really fails); `--engine` reaches Podman's service and a
// TLS engine on loopback; `codemode engine list|use` shows and saves the choice.
import { RUN_EXIT } from "../electron/host/cli/run-exit.js";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerOrSkip, installContainers } from "../test-support/docker.js";
import { startEngineFaultProxy } from "../test-support/engine-fault-proxy.js";
import { freePort } from "../test-support/free-port.js";
import {
  BROKEN_RUNTIME_MESSAGE,
  podmanInstalled,
  startPrivatePodman,
  type PrivatePodman,
} from "../test-support/private-podman.js";
import { startPrivateDocker, type PrivateDocker } from "../test-support/private-docker.js";
import { assertBuilt, childEnv, CODEMODE_BIN } from "../test-support/processes.js";
import { makeTlsMaterial } from "../test-support/test-certs.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";

const fx = await dockerOrSkip();
if (fx && !podmanInstalled() && process.env.CI === "true") {
  throw new Error("podman is required in CI (.ci/run installs it)");
}

interface CliExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with `code` on stdin and waits for it to exit, however long that takes. */
function codemode(
  args: string[],
  home: string,
  env: Record<string, string> = {},
  code = "print(1)",
): Promise<CliExit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CODEMODE_BIN, ...args], {
      env: childEnv(home, env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.stdin.end(code);
    // "close", not "exit": at its exit what it wrote last may still be in the pipes.
    child.once("close", (exitCode) => resolve({ code: exitCode, stdout, stderr }));
  });
}

describe.skipIf(!fx)("codemode against other engines", () => {
  const home = tempDir("cm-engine-cli-");
  let podman: PrivatePodman | null = null;
  let tlsEngine: PrivateDocker | null = null;

  beforeAll(() => assertBuilt());
  afterAll(async () => {
    await podman?.destroy();
    await tlsEngine?.destroy();
    removeTempDirs();
  });

  it("an engine that refuses the start ends the run with its words, and the process exits", async () => {
    const socket = (fx!.docker.modem as unknown as { socketPath: string }).socketPath;
    const proxy = await startEngineFaultProxy(socket, {
      method: "POST",
      pathEnd: "/start",
      status: 500,
      message: "injected fault: the engine refuses to start this container",
    });
    try {
      // DOCKER_HOST, as a user of the Docker CLI names an engine.
      const exit = await codemode(["run", "-"], home, { DOCKER_HOST: proxy.url });
      expect(proxy.faults()).toBe(1);
      expect(exit.code).toBe(RUN_EXIT.unavailable);
      const message = exit.stderr.trim();
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toContain("could not start the sandbox container");
      expect(message).toContain("injected fault");
      expect(message).toContain(proxy.url);
      expect(await installContainers(fx!.docker, home)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  describe.skipIf(!podmanInstalled())("on Podman's Docker-compatible service", () => {
    beforeAll(async () => {
      podman = await startPrivatePodman();
      await podman.loadImage(fx!.docker, fx!.image);
    });

    it("--engine runs the code there", async () => {
      const exit = await codemode(
        ["run", "--engine", podman!.runc.url, "-"],
        home,
        {},
        "import os\nprint(os.getuid())",
      );
      expect(exit.stderr).toBe("");
      expect(JSON.parse(exit.stdout)).toMatchObject({ stdout: "65534\n", error: null });
    });

    it("a runtime that fails every start: the run ends with Podman's error, the process exits", async () => {
      const broken = await podman!.startBroken();
      const exit = await codemode(["run", "--engine", broken.url, "-"], home);
      expect(exit.code).toBe(RUN_EXIT.unavailable);
      expect(exit.stderr.trim().split("\n")).toHaveLength(1);
      expect(exit.stderr).toContain("could not start the sandbox container");
      expect(exit.stderr).toContain(BROKEN_RUNTIME_MESSAGE);
      expect(await installContainers(broken.docker, home)).toEqual([]);
    });

    it("engine use saves the choice; run and engine list follow it", async () => {
      const use = await codemode(["engine", "use", podman!.runc.url], home);
      expect(use.code).toBe(0);
      const saved = JSON.parse(readFileSync(path.join(home, "settings.json"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(saved.sandboxEngine).toBe(podman!.runc.url);
      const list = await codemode(["engine", "list"], home);
      expect(list.stdout).toMatch(
        new RegExp(`^\\* +${podman!.runc.url.replaceAll("/", "\\/")} .*answers \\(Podman `, "m"),
      );
      const run = await codemode(["run", "-"], home, {}, "print('on podman')");
      expect(JSON.parse(run.stdout)).toMatchObject({ stdout: "on podman\n" });
      expect((await codemode(["engine", "use", "auto"], home)).code).toBe(0);
    });
  });

  it("--engine tcp:// with DOCKER_CERT_PATH reaches a TLS engine; a wrong CA is refused", async () => {
    const tls = makeTlsMaterial(path.join(tempDir("cm-tls-"), "certs"));
    const port = await freePort();
    tlsEngine = await startPrivateDocker({ port, ...tls });
    await tlsEngine.loadImage(fx!.docker, fx!.image);
    const url = `tcp://127.0.0.1:${port}`;
    const ok = await codemode(["run", "--engine", url, "-"], home, {
      DOCKER_CERT_PATH: tls.clientDir,
    });
    expect(ok.stderr).toBe("");
    expect(JSON.parse(ok.stdout)).toMatchObject({ stdout: "1\n" });
    const refused = await codemode(["run", "--engine", url, "-"], home, {
      DOCKER_CERT_PATH: tls.wrongCaDir,
    });
    expect(refused.code).toBe(RUN_EXIT.unavailable);
    expect(refused.stderr).toContain("does not verify");
    expect(refused.stdout).toBe("");
  });
});

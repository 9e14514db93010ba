// A saved runtime the engine lacks (settings.json says runsc, the engine has no gVisor) must
// not fail every run with Docker's terse "unknown or invalid runtime": the supervisor checks the
// engine when it first sees it, refuses runs at once saying what the engine has and how to
// switch back, and the app's status shows the same. Against a stand-in engine offering runc.
import Dockerode from "dockerode";
import { afterEach, describe, expect, it } from "vitest";
import {
  startRuncOnlyEngine,
  type RuncOnlyEngine,
} from "../../../test-support/runc-only-engine.js";
import { AppStatus, type AppStatusSources } from "../app/app-status.js";
import { DockerApiEngine } from "./container-engine/docker-api-engine.js";
import { SandboxSupervisor, SandboxUnavailable } from "./sandbox-supervisor.js";

let engine: RuncOnlyEngine | null = null;
let supervisor: SandboxSupervisor | null = null;

afterEach(async () => {
  await supervisor?.close();
  await engine?.close();
  supervisor = null;
  engine = null;
});

async function slotOn(runtime: "runc" | "runsc"): Promise<SandboxSupervisor> {
  engine = await startRuncOnlyEngine();
  const docker = new Dockerode({ socketPath: engine.dockerHost.slice("unix://".length) });
  supervisor = new SandboxSupervisor({
    findDocker: () =>
      Promise.resolve({
        state: "ready",
        docker,
        engine: new DockerApiEngine({ docker, endpoint: engine!.dockerHost }),
        endpoint: engine!.dockerHost,
        version: "27",
      }),
    files: [],
    owner: { install: "test-install", pid: process.pid } as never,
    poolSize: 0,
    deadlineSeconds: 5,
    runtime,
  });
  await supervisor.refresh();
  return supervisor;
}

const request = { code: "print(1)" } as never;

describe("SandboxSupervisor with a saved runtime the engine lacks", () => {
  it("refuses runs at once naming the engine's runtimes and the way back", async () => {
    const s = await slotOn("runsc");
    const refusal = s.run(request, {});
    await expect(refusal).rejects.toBeInstanceOf(SandboxUnavailable);
    await expect(refusal).rejects.toThrow(
      `the saved sandbox runtime is "runsc", but the Docker engine at ${engine!.dockerHost} has no runtime "runsc"; it has: runc.`,
    );
    await expect(refusal).rejects.toThrow("choose runc on the Sandbox page");
    expect(s.dockerView()).toMatchObject({ state: "ready", message: s.runtimeProblem });
    const status = new AppStatus({
      sandbox: s,
      startupProblems: [],
      socket: { socketPath: undefined },
      http: { url: null },
      gate: { paused: false },
      audit: { failure: null },
      engine: { lastCatalogError: null },
    } as unknown as AppStatusSources);
    status.stopWatching();
    expect(status.info().startupProblems).toEqual([s.runtimeProblem]);
    expect(s.runtimeProblem).toContain("it has: runc");
  });

  it("runs again once runc is chosen, and says nothing when runc is the saved runtime", async () => {
    const s = await slotOn("runsc");
    s.setRuntime("runc");
    expect(s.runtimeProblem).toBeNull();
    // The stand-in has no image: the refusal is now the usual one.
    await expect(s.run(request, {})).rejects.toThrow("sandbox image is not built");
    await supervisor!.close();
    await engine!.close();
    const plain = await slotOn("runc");
    expect(plain.runtimeProblem).toBeNull();
    expect(plain.dockerView().message).toBeNull();
  });
});

// The supervisor's outage handling against a fake engine: a false alarm must not sweep every run
// in flight, quitting while Docker comes back must leave no sandbox behind, and one outage
// must run one reconnect loop. The Sandbox is a stand-in: only its lifetime matters here.
import { PassThrough } from "node:stream";
import type Dockerode from "dockerode";
import { afterEach, describe, expect, it, vi } from "vitest";
import { until } from "../../../test-support/wait.js";
import { DockerApiEngine } from "./container-engine/docker-api-engine.js";
import type { DockerStatus } from "./container-engine/docker-status.js";
import {
  SandboxSupervisor,
  SandboxUnavailable,
  type DockerOutageEvent,
} from "./sandbox-supervisor.js";

const fake = vi.hoisted(() => {
  const state = {
    made: [] as { closed: boolean }[],
    sweeps: [] as { includeOwn: boolean }[],
    sweepGate: Promise.resolve(),
    runError: null as Error | null,
    buildGate: Promise.resolve(),
  };
  class FakeSandbox {
    closed = false;
    deadlineSeconds = 0;
    constructor() {
      state.made.push(this);
    }
    run(): Promise<never> {
      return Promise.reject(state.runError ?? new Error("no run error set"));
    }
    poolStarted(): Promise<number> {
      return Promise.resolve(1);
    }
    setPoolSize(): void {}
    close(): Promise<void> {
      this.closed = true;
      return Promise.resolve();
    }
  }
  const sweepOrphanContainers = async (
    _docker: unknown,
    _owner: unknown,
    _isAlive: unknown,
    includeOwn = false,
  ): Promise<number> => {
    state.sweeps.push({ includeOwn });
    await state.sweepGate;
    return 0;
  };
  return { state, FakeSandbox, sweepOrphanContainers };
});

vi.mock("./sandbox.js", () => ({
  Sandbox: fake.FakeSandbox,
  sweepOrphanContainers: fake.sweepOrphanContainers,
}));

vi.mock("./container-engine/docker-image-build.js", () => ({
  dockerBuildImage: () => fake.state.buildGate,
}));

const { made, sweeps } = fake.state;

function connReset(): Error {
  return Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
}

/** An engine whose ping and event stream the test decides. */
function fakeEngine() {
  const engine = {
    pingFails: false,
    eventsFail: false,
    docker: {
      ping: () => (engine.pingFails ? Promise.reject(connReset()) : Promise.resolve("OK")),
      getEvents: () =>
        engine.eventsFail ? Promise.reject(connReset()) : Promise.resolve(new PassThrough()),
      getImage: () => ({ inspect: () => Promise.resolve({}) }),
    } as unknown as Dockerode,
  };
  return engine;
}

/** The fake engine found ready at `endpoint`. */
function readyStatus(engine: ReturnType<typeof fakeEngine>, endpoint: string): DockerStatus {
  return {
    state: "ready",
    docker: engine.docker,
    engine: new DockerApiEngine({ docker: engine.docker, endpoint }),
    endpoint,
    version: "1",
  };
}

function makeSupervisor(engine: ReturnType<typeof fakeEngine>) {
  const outages: DockerOutageEvent[] = [];
  let looks = 0;
  const ready = readyStatus(engine, "fake");
  const supervisor = new SandboxSupervisor({
    findDocker: () => {
      looks++;
      return Promise.resolve(ready);
    },
    files: [],
    owner: { install: "test-install", pid: process.pid } as never,
    poolSize: 0,
    deadlineSeconds: 5,
    onOutage: (event) => outages.push(event),
  });
  return { supervisor, outages, looks: () => looks };
}

const request = { code: "print(1)" } as never;
let open: SandboxSupervisor[] = [];

afterEach(async () => {
  await Promise.all(open.map((supervisor) => supervisor.close()));
  open = [];
  made.length = 0;
  sweeps.length = 0;
  fake.state.sweepGate = Promise.resolve();
  fake.state.runError = null;
  fake.state.buildGate = Promise.resolve();
});

describe("SandboxSupervisor outages", () => {
  it("takes one failed request as that run's error while Docker still answers a ping", async () => {
    const engine = fakeEngine();
    const { supervisor, outages } = makeSupervisor(engine);
    open.push(supervisor);
    await supervisor.refresh();
    expect(made).toHaveLength(1);
    fake.state.runError = connReset();
    await expect(supervisor.run(request, {})).rejects.toThrow("socket hang up");
    expect(outages).toEqual([]);
    expect(supervisor.unreachable).toBeNull();
    expect(made[0]!.closed).toBe(false);
    expect(sweeps.filter((s) => s.includeOwn)).toEqual([]);
  });

  it("declares the outage when the ping fails too", async () => {
    const engine = fakeEngine();
    const { supervisor, outages } = makeSupervisor(engine);
    open.push(supervisor);
    await supervisor.refresh();
    fake.state.runError = connReset();
    engine.pingFails = true;
    await expect(supervisor.run(request, {})).rejects.toBeInstanceOf(SandboxUnavailable);
    expect(outages[0]).toMatchObject({ phase: "lost" });
    expect(supervisor.unreachable).not.toBeNull();
  });

  it("leaves no sandbox open when the app quits while Docker is coming back", async () => {
    const engine = fakeEngine();
    const { supervisor, outages } = makeSupervisor(engine);
    open.push(supervisor);
    await supervisor.refresh();
    fake.state.runError = connReset();
    engine.pingFails = true;
    await expect(supervisor.run(request, {})).rejects.toBeInstanceOf(SandboxUnavailable);
    let release = (): void => undefined;
    fake.state.sweepGate = new Promise((resolve) => (release = resolve));
    // The reconnect loop finds the engine and starts the come-back sweep; quit meanwhile.
    await until(() => sweeps.some((s) => s.includeOwn), "the come-back sweep");
    await supervisor.close();
    release();
    await supervisor.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(made.every((sandbox) => sandbox.closed)).toBe(true);
    expect(outages.filter((e) => e.phase === "back")).toEqual([]);
  });

  it("runs one reconnect loop when Docker goes away again as it comes back", async () => {
    const engine = fakeEngine();
    const { supervisor, outages, looks } = makeSupervisor(engine);
    open.push(supervisor);
    await supervisor.refresh();
    fake.state.runError = connReset();
    engine.pingFails = true;
    await expect(supervisor.run(request, {})).rejects.toBeInstanceOf(SandboxUnavailable);
    // Back for a moment: the new watch's event stream fails at once.
    engine.eventsFail = true;
    await until(() => outages.filter((e) => e.phase === "lost").length >= 2, "a second loss");
    await supervisor.close();
    const after = looks();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(looks()).toBe(after);
  });

  it("makes no sandbox when an image build finishes during an outage", async () => {
    const engine = fakeEngine();
    const { supervisor } = makeSupervisor(engine);
    open.push(supervisor);
    await supervisor.refresh();
    let release = (): void => undefined;
    fake.state.buildGate = new Promise((resolve) => (release = resolve));
    expect(supervisor.startBuild()).toBe(true);
    fake.state.runError = connReset();
    engine.pingFails = true;
    // The reconnect loop must not come back meanwhile: its sweep waits.
    fake.state.sweepGate = new Promise(() => undefined);
    await expect(supervisor.run(request, {})).rejects.toBeInstanceOf(SandboxUnavailable);
    release();
    await until(() => !supervisor.isBuilding, "the build to finish");
    expect(made).toHaveLength(1);
  });
});

describe("SandboxSupervisor at the app's start", () => {
  /** A supervisor whose looks answer only when the test says, with what it says. */
  function gatedSupervisor() {
    const engine = fakeEngine();
    const ready = readyStatus(engine, "slow");
    const answers: ((status: DockerStatus) => void)[] = [];
    const supervisor = new SandboxSupervisor({
      findDocker: () => new Promise((resolve) => answers.push(resolve)),
      files: [],
      owner: { install: "test-install", pid: process.pid } as never,
      poolSize: 0,
      deadlineSeconds: 5,
    });
    open.push(supervisor);
    const answer = Object.assign(
      (status: DockerStatus = ready): void => answers.shift()?.(status),
      { pending: () => answers.length },
    );
    return { supervisor, engine, answer };
  }
  const notRunning: DockerStatus = { state: "not-running", tried: ["x"], message: "no engine" };
  /** A run whose rejection says it reached the (fake) sandbox, rather than being refused. */
  const RAN = "the sandbox ran it";
  function runToSandbox(supervisor: SandboxSupervisor): Promise<unknown> {
    fake.state.runError = new Error(RAN);
    return supervisor.run(request, {});
  }

  it("has a run that comes while Docker is first looked for wait for that look", async () => {
    // The app takes clients before a slow engine has answered: such a run was refused with
    // "Docker has not been found yet" although the engine was about to answer.
    const { supervisor, answer } = gatedSupervisor();
    void supervisor.refresh();
    const run = runToSandbox(supervisor);
    answer();
    await expect(run).rejects.toThrow(RAN);
  });

  it("has a run wait while the look, the engine found, still sweeps and checks the image", async () => {
    // The engine is known before the sandbox is made: a run then was refused with "its sandbox
    // image is not built" though the image was there.
    const { supervisor, answer } = gatedSupervisor();
    let sweepDone = (): void => undefined;
    fake.state.sweepGate = new Promise((resolve) => (sweepDone = resolve));
    void supervisor.refresh();
    answer();
    await until(() => sweeps.length === 1, "the look to reach its sweep");
    const run = runToSandbox(supervisor);
    sweepDone();
    await expect(run).rejects.toThrow(RAN);
  });

  it("has a run right after another engine is chosen wait for that engine's look", async () => {
    const { supervisor, answer } = gatedSupervisor();
    const first = supervisor.refresh();
    answer();
    await first;
    const switched = supervisor.setEngine("other");
    const run = runToSandbox(supervisor);
    await until(() => answer.pending() === 1, "the look for the new engine");
    answer();
    await switched;
    await expect(run).rejects.toThrow(RAN);
  });

  it("stops the wait when the run is cancelled", async () => {
    const { supervisor } = gatedSupervisor();
    void supervisor.refresh();
    const cancel = new AbortController();
    const run = supervisor.run(request, { signal: cancel.signal });
    cancel.abort();
    await expect(run).rejects.toThrow("Docker has not been found yet");
  });

  it("does not wait for a later look once one has answered", async () => {
    const { supervisor, answer } = gatedSupervisor();
    const first = supervisor.refresh();
    answer(notRunning);
    await first;
    // A poll's look that never answers (a mute socket): runs are refused at once meanwhile.
    void supervisor.refresh();
    await expect(supervisor.run(request, {})).rejects.toThrow(SandboxUnavailable);
    await expect(supervisor.run(request, {})).rejects.toThrow(
      "Code Mode cannot run code: no engine",
    );
  });

  it("watches no engine that a look finds after the app quit", async () => {
    // The first look runs on after the app takes clients, so a quit can come during it; a
    // watch started then held an event stream open on an engine nobody would close.
    const { supervisor, engine, answer } = gatedSupervisor();
    let sweepDone = (): void => undefined;
    fake.state.sweepGate = new Promise((resolve) => (sweepDone = resolve));
    let watched = 0;
    const getEvents = engine.docker.getEvents.bind(engine.docker);
    engine.docker.getEvents = ((...args: never[]) => {
      watched++;
      return getEvents(...args);
    }) as typeof engine.docker.getEvents;
    const look = supervisor.refresh();
    answer();
    await until(() => sweeps.length === 1, "the look to reach its sweep");
    await supervisor.close();
    sweepDone();
    await look;
    expect(watched).toBe(0);
  });
});

describe("SandboxSupervisor engine choice", () => {
  it("uses the engine chosen while a look for the one before is on its way", async () => {
    const engine = fakeEngine();
    let answerOld = (): void => undefined;
    const oldAnswered = new Promise<void>((resolve) => (answerOld = resolve));
    const supervisor = new SandboxSupervisor({
      // The look for the old choice answers only when the test says (a slow probe, a check
      // from the page); the new choice answers at once.
      findDocker: async (preference = "") => {
        if (preference === "old") await oldAnswered;
        return readyStatus(engine, preference);
      },
      files: [],
      owner: { install: "test-install", pid: process.pid } as never,
      poolSize: 0,
      deadlineSeconds: 5,
      engine: "old",
    });
    open.push(supervisor);
    const check = supervisor.refresh();
    const switched = supervisor.setEngine("new");
    answerOld();
    await check;
    expect((await switched).endpoint).toBe("new");
    expect(supervisor.dockerView().endpoint).toBe("new");
    // One sandbox, on the new engine: the old one's was never made, or was given up.
    expect(made.filter((sandbox) => !sandbox.closed)).toHaveLength(1);
  });
});

import type Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { engineRuntimes, missingRuntimeMessage, requireRuntime } from "./docker-runtimes.js";

const engine = (runtimes: Record<string, unknown> | null) =>
  ({ info: () => Promise.resolve({ Runtimes: runtimes }) }) as unknown as Dockerode;

describe("docker runtimes", () => {
  it("lists the engine's runtimes, sorted; none named means runc", async () => {
    expect(await engineRuntimes(engine({ runsc: {}, runc: {} }))).toEqual(["runc", "runsc"]);
    expect(await engineRuntimes(engine(null))).toEqual(["runc"]);
  });

  it("a runtime the engine lacks is refused naming the ones it has", async () => {
    expect(missingRuntimeMessage("runsc", ["runc", "runsc"])).toBeNull();
    const message = missingRuntimeMessage("runsc", ["io.containerd.runc.v2", "runc"]);
    expect(message).toContain('no runtime "runsc"');
    expect(message).toContain("it has: io.containerd.runc.v2, runc");
    await expect(requireRuntime(engine({ runc: {} }), "runsc")).rejects.toThrow(
      'no runtime "runsc"; it has: runc',
    );
    await expect(requireRuntime(engine({ runc: {} }), "runc")).resolves.toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { dockerOrSkip } from "../../../test-support/docker.js";
import type { BuildEvent } from "./image.js";

const fx = await dockerOrSkip();

// Skipped only outside CI when no engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("building the sandbox image", () => {
  it("a failing build rejects with Docker's message, though Docker reports it inside a successful stream", async () => {
    const events: BuildEvent[] = [];
    const broken = [
      {
        name: "Dockerfile",
        content: Buffer.from("FROM debian:trixie-slim\nRUN echo building && exit 3\n"),
      },
    ];
    await expect(fx!.engine.buildImage(broken, (e) => events.push(e))).rejects.toThrow(
      /the sandbox image did not build: .*returned a non-zero code: 3/,
    );
    // Progress reached the caller as it happened.
    expect(events.some((e) => e.kind === "step" && e.text.includes("exit 3"))).toBe(true);
    expect(events).toContainEqual({ kind: "log", text: "building" });
  });
});

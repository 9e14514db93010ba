import { describe, expect, it } from "vitest";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import type { RunImageData } from "../core/ports/run-types.js";
import { RunImageCache, IMAGE_CACHED_RUNS } from "./run-image-cache.js";

function image(name: string): RunImageData {
  const png = Buffer.from(name);
  return { name, bytes: png.length, sha256: "0".repeat(64), width: 1, height: 1, png };
}

describe("RunImageCache", () => {
  it("gives a run's images as base64 PNGs, in the order they came", () => {
    const cache = new RunImageCache();
    cache.add("r1", image("a.png"));
    cache.add("r1", image("b.png"));
    expect(
      cache.get("r1").map((i) => [i.name, Buffer.from(i.pngBase64, "base64").toString()]),
    ).toEqual([
      ["a.png", "a.png"],
      ["b.png", "b.png"],
    ]);
    expect(cache.get("other")).toEqual([]);
  });

  it(`keeps the images of the last ${IMAGE_CACHED_RUNS} runs only`, () => {
    const cache = new RunImageCache();
    for (let run = 0; run < IMAGE_CACHED_RUNS + 3; run++) cache.add(`r${run}`, image("x.png"));
    expect(cache.size).toBe(IMAGE_CACHED_RUNS);
    expect(cache.get("r0")).toEqual([]);
    expect(cache.get("r2")).toEqual([]);
    expect(cache.get("r3")).toHaveLength(1);
    expect(cache.get(`r${IMAGE_CACHED_RUNS + 2}`)).toHaveLength(1);
  });

  it("keeps what recent runs printed, cut to runOutputShownBytes, secrets masked", () => {
    const cache = new RunImageCache();
    const secret = "sk-live-0123456789";
    const stdout = `key ${secret}\n${"x".repeat(10_000)}`;
    cache.addOutput("r1", { stdout, stderr: "warn\n" }, [secret]);
    const output = cache.output("r1")!;
    expect(output.stdout.startsWith("key [secret]\n")).toBe(true);
    expect(output.stdout).not.toContain(secret);
    expect(Buffer.byteLength(output.stdout)).toBeLessThanOrEqual(AUDIT_LIMITS.runOutputShownBytes);
    expect(output).toMatchObject({ stderr: "warn\n", stdoutBytes: Buffer.byteLength(stdout) });
    for (let run = 2; run <= IMAGE_CACHED_RUNS + 1; run++) {
      cache.addOutput(`r${run}`, { stdout: "", stderr: "" }, []);
    }
    expect(cache.output("r1")).toBeNull();
    expect(cache.output("r2")).not.toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { RunRefusals, REFUSED_CLIENTS_SHOWN } from "./run-refusals.js";

describe("RunRefusals", () => {
  it("counts any number of refusals into one entry, then starts over", () => {
    let t = 0;
    const refusals = new RunRefusals(() => new Date(t));
    expect(refusals.take("docker_unreachable")).toBeNull();
    for (let i = 0; i < 5_000; i++) {
      t = i;
      refusals.add(`client-${i % (REFUSED_CLIENTS_SHOWN + 3)}`);
    }
    const entry = refusals.take("docker_unreachable");
    expect(entry).toMatchObject({
      kind: "runs_refused",
      cause: "docker_unreachable",
      count: 5_000,
      firstAt: new Date(0).toISOString(),
      lastAt: new Date(4_999).toISOString(),
    });
    expect(entry?.clients).toHaveLength(REFUSED_CLIENTS_SHOWN);
    expect(refusals.count).toBe(0);
    expect(refusals.take("docker_unreachable")).toBeNull();
  });
});

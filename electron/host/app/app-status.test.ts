import { describe, expect, it } from "vitest";
import type { SandboxPoolView } from "../../../shared/api/api-views.js";
import { AppStatus, type AppStatusSources } from "./app-status.js";
import { EventHub } from "../api/event-hub.js";
import { RunGate } from "./run-gate.js";

describe("AppStatus: the sandboxes' live counts", () => {
  it("counts ready, starting and running ones, and tells only when they change", async () => {
    const events = new EventHub();
    const told: SandboxPoolView[] = [];
    events.on("sandbox.pool", (view) => told.push(view));
    const sandbox = {
      poolCounts: { ready: 1, starting: 1, target: 2 } as {
        ready: number;
        starting: number;
        target: number;
      } | null,
    };
    const gate = new RunGate(1);
    const status = new AppStatus({
      sandbox,
      gate,
      events,
      // Sampled by hand below; the timer stays out of the way.
      poolSampleMs: 3_600_000,
    } as unknown as AppStatusSources);
    try {
      status.samplePool();
      status.samplePool();
      expect(told).toEqual([{ ready: 1, starting: 1, target: 2, running: 0, queued: 0 }]);
      // A run takes the ready one (refilled: one starting more); a second waits its turn.
      const release = await gate.enter();
      const waiting = gate.enter();
      sandbox.poolCounts = { ready: 0, starting: 2, target: 2 };
      status.samplePool();
      expect(told.at(-1)).toEqual({ ready: 0, starting: 2, target: 2, running: 1, queued: 1 });
      release();
      (await waiting)();
      // No Docker, or no image: nothing is ready, nothing starts.
      sandbox.poolCounts = null;
      expect(status.pool()).toEqual({ ready: 0, starting: 0, target: 0, running: 0, queued: 0 });
    } finally {
      status.stopWatching();
    }
  });
});

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { meterMessages } from "./message-meter.js";

const message = { jsonrpc: "2.0" as const, method: "notifications/message" };

describe("meterMessages", () => {
  function metered(): {
    send: (count: number) => void;
    at: (ms: number) => void;
    floods: () => number;
  } {
    let now = 0;
    let floods = 0;
    const transport = {} as Transport;
    meterMessages(
      transport,
      () => floods++,
      () => now,
    );
    return {
      send: (count) => {
        for (let i = 0; i < count; i++) transport.onmessage?.(message);
      },
      at: (ms) => (now = ms),
      floods: () => floods,
    };
  }

  it("takes a burst up to the bucket, then calls onFlood once, at the first message past it", () => {
    const meter = metered();
    meter.send(SERVER_LIMITS.messagesBurstMax);
    expect(meter.floods()).toBe(0);
    meter.send(1);
    expect(meter.floods()).toBe(1);
    meter.send(10_000);
    meter.at(60_000);
    meter.send(SERVER_LIMITS.messagesBurstMax * 2);
    expect(meter.floods()).toBe(1);
  });

  it("takes the refill rate for as long as it lasts, and a burst again once the bucket refilled", () => {
    const meter = metered();
    meter.send(SERVER_LIMITS.messagesBurstMax);
    // A minute at the refill rate, a tenth of a second at a time.
    for (let ms = 100; ms <= 60_000; ms += 100) {
      meter.at(ms);
      meter.send(SERVER_LIMITS.messagesPerSecondMax / 10);
    }
    expect(meter.floods()).toBe(0);
    meter.at(60_000 + (1000 * SERVER_LIMITS.messagesBurstMax) / SERVER_LIMITS.messagesPerSecondMax);
    meter.send(SERVER_LIMITS.messagesBurstMax);
    expect(meter.floods()).toBe(0);
    meter.send(1);
    expect(meter.floods()).toBe(1);
  });
});

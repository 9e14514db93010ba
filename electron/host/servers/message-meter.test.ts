import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { meterMessages } from "./message-meter.js";
import { MESSAGES_PER_SECOND_MAX, MESSAGES_BURST_MAX } from "./rate-bucket.js";

const message = { jsonrpc: "2.0" as const, method: "notifications/message" };

describe("meterMessages", () => {
  function metered(): {
    send: (count: number) => void;
    at: (ms: number) => void;
    floods: () => number;
  } {
    let now = 0;
    let floods = 0;
    const transport = { send: () => Promise.resolve() } as unknown as Transport;
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
    meter.send(MESSAGES_BURST_MAX);
    expect(meter.floods()).toBe(0);
    meter.send(1);
    expect(meter.floods()).toBe(1);
    meter.send(10_000);
    meter.at(60_000);
    meter.send(MESSAGES_BURST_MAX * 2);
    expect(meter.floods()).toBe(1);
  });

  it("takes the refill rate for as long as it lasts, and a burst again once the bucket refilled", () => {
    const meter = metered();
    meter.send(MESSAGES_BURST_MAX);
    // A minute at the refill rate, a tenth of a second at a time.
    for (let ms = 100; ms <= 60_000; ms += 100) {
      meter.at(ms);
      meter.send(MESSAGES_PER_SECOND_MAX / 10);
    }
    expect(meter.floods()).toBe(0);
    meter.at(60_000 + (1000 * MESSAGES_BURST_MAX) / MESSAGES_PER_SECOND_MAX);
    meter.send(MESSAGES_BURST_MAX);
    expect(meter.floods()).toBe(0);
    meter.send(1);
    expect(meter.floods()).toBe(1);
  });

  it("does not count answers to the host's own requests, but counts answers it did not ask for", async () => {
    // An honest fast server answering a run's gathered calls: ~6,000 answers a second were
    // stopped as a flood after ~7,000 (the burst and a second of refill).
    let floods = 0;
    const transport = { send: () => Promise.resolve() } as unknown as Transport;
    meterMessages(
      transport,
      () => floods++,
      () => 0,
    );
    const answers = 4 * MESSAGES_BURST_MAX;
    for (let id = 1; id <= answers; id++) {
      await transport.send({ jsonrpc: "2.0", id, method: "tools/call", params: {} });
      transport.onmessage?.({ jsonrpc: "2.0", id, result: { content: [] } });
    }
    expect(floods).toBe(0);
    // Answers past those asked for (and notifications) still draw on the bucket.
    for (let id = 1; id <= MESSAGES_BURST_MAX + 1; id++)
      transport.onmessage?.({ jsonrpc: "2.0", id, result: {} });
    expect(floods).toBe(1);
  });

  it("counts the lines the transport could not read (its errors) as messages", () => {
    // A line that is not JSON, or JSON that is no JSON-RPC message, reaches onerror alone.
    let floods = 0;
    const transport = { send: () => Promise.resolve() } as unknown as Transport;
    meterMessages(
      transport,
      () => floods++,
      () => 0,
    );
    for (let i = 0; i < MESSAGES_BURST_MAX; i++) {
      transport.onerror?.(new SyntaxError("Unexpected end of JSON input"));
    }
    expect(floods).toBe(0);
    transport.onerror?.(new SyntaxError("Unexpected end of JSON input"));
    expect(floods).toBe(1);
  });
});

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { meterMessages } from "./message-meter.js";

const message = { jsonrpc: "2.0" as const, method: "notifications/message" };

describe("meterMessages", () => {
  it("calls onFlood once, at the first message past the limit in one second", () => {
    let now = 0;
    let floods = 0;
    const transport = {} as Transport;
    meterMessages(
      transport,
      () => floods++,
      () => now,
    );
    const send = (count: number): void => {
      for (let i = 0; i < count; i++) transport.onmessage?.(message);
    };
    send(SERVER_LIMITS.messagesPerSecondMax);
    expect(floods).toBe(0);
    // A new second starts the count over.
    now = 1_000;
    send(SERVER_LIMITS.messagesPerSecondMax);
    expect(floods).toBe(0);
    send(1);
    expect(floods).toBe(1);
    send(10_000);
    now = 5_000;
    send(10_000);
    expect(floods).toBe(1);
  });
});

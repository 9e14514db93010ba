import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { meterMessages } from "./message-meter.js";

const message = { jsonrpc: "2.0" as const, method: "notifications/message" };

describe("meterMessages", () => {
  it("calls onFlood once, at the first message past the limit in its window", () => {
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
    send(SERVER_LIMITS.messagesPerWindowMax);
    expect(floods).toBe(0);
    // A new window starts the count over.
    now = SERVER_LIMITS.messagesWindowMs;
    send(SERVER_LIMITS.messagesPerWindowMax);
    expect(floods).toBe(0);
    send(1);
    expect(floods).toBe(1);
    send(10_000);
    now = SERVER_LIMITS.messagesWindowMs * 5;
    send(SERVER_LIMITS.messagesPerWindowMax * 2);
    expect(floods).toBe(1);
  });
});

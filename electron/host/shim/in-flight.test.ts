import { describe, expect, it } from "vitest";
import { InFlight, SHIM_TRACKED_LINE_MAX_BYTES, SHIM_TRACKED_REQUESTS_MAX } from "./in-flight.js";

const request = (id: unknown): Buffer =>
  Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call" }) + "\n");

describe("InFlight", () => {
  it("tracks requests whose lines come in pieces, and skips one too long to look at", () => {
    const flight = new InFlight();
    const long = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { pad: "x".repeat(SHIM_TRACKED_LINE_MAX_BYTES) },
    });
    const bytes = Buffer.concat([request(1), Buffer.from(long + "\n"), request(3)]);
    for (let at = 0; at < bytes.length; at += 1000)
      flight.fromClient.push(bytes.subarray(at, at + 1000));
    expect(flight.pending()).toEqual([1, 3]);
  });

  it("tracks the client's requests until the host answers them", () => {
    const flight = new InFlight();
    flight.fromClient.push(Buffer.concat([request(1), request("1"), request("x")]));
    // A notification (no id) and a response to a host request (no method) are not tracked.
    flight.fromClient.push(Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'));
    flight.fromClient.push(Buffer.from('{"jsonrpc":"2.0","id":9,"result":{}}\n'));
    expect(flight.pending()).toEqual([1, "1", "x"]);
    flight.fromHost.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    // A request from the host with the same id is not an answer.
    flight.fromHost.push(Buffer.from('{"jsonrpc":"2.0","id":"x","method":"ping"}\n'));
    expect(flight.pending()).toEqual(["1", "x"]);
    flight.fromHost.push(
      Buffer.from('{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}\n'),
    );
    expect(flight.pending()).toEqual(["1"]);
  });

  it("forgets a request the client cancelled, and ignores lines that are not JSON objects", () => {
    const flight = new InFlight();
    flight.fromClient.push(request(5));
    flight.fromClient.push(Buffer.from("not json\n[1,2]\nnull\n"));
    flight.fromClient.push(
      Buffer.from(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}\n',
      ),
    );
    expect(flight.pending()).toEqual([]);
  });

  it(`remembers at most ${SHIM_TRACKED_REQUESTS_MAX} requests`, () => {
    const flight = new InFlight();
    for (let i = 0; i < SHIM_TRACKED_REQUESTS_MAX + 5; i++) {
      flight.fromClient.push(request(i));
    }
    expect(flight.pending()).toHaveLength(SHIM_TRACKED_REQUESTS_MAX);
  });
});

import { describe, expect, it } from "vitest";
import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";
import { InFlight, LineSplitter } from "./in-flight.js";

const request = (id: unknown): Buffer =>
  Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call" }) + "\n");

describe("LineSplitter", () => {
  it("joins lines split across chunks and splits chunks holding several lines", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(100, (line) => lines.push(line));
    splitter.push(Buffer.from("ab"));
    splitter.push(Buffer.from("c\nde\nf"));
    splitter.push(Buffer.from("\n"));
    expect(lines).toEqual(["abc", "de", "f"]);
  });

  it("skips a line longer than its bound without buffering it, and reads the next one", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(4, (line) => lines.push(line));
    splitter.push(Buffer.from("12345"));
    splitter.push(Buffer.from("6789\nok\n"));
    expect(lines).toEqual(["ok"]);
  });
});

describe("InFlight", () => {
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

  it(`remembers at most ${LOCAL_ACCESS_LIMITS.shimTrackedRequestsMax} requests`, () => {
    const flight = new InFlight();
    for (let i = 0; i < LOCAL_ACCESS_LIMITS.shimTrackedRequestsMax + 5; i++) {
      flight.fromClient.push(request(i));
    }
    expect(flight.pending()).toHaveLength(LOCAL_ACCESS_LIMITS.shimTrackedRequestsMax);
  });
});

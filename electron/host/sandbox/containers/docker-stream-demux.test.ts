import { describe, expect, it } from "vitest";
import { DockerStreamDemux, type StreamKind } from "./docker-stream-demux.js";

function frame(kind: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe("DockerStreamDemux", () => {
  it("splits frames that arrive one byte at a time", () => {
    const seen: [StreamKind, string][] = [];
    const demux = new DockerStreamDemux((kind, data) => seen.push([kind, data.toString()]));
    const all = Buffer.concat([frame(1, "out"), frame(2, "err"), frame(1, "more")]);
    for (const byte of all) demux.push(Buffer.from([byte]));
    const joined = new Map<StreamKind, string>();
    for (const [kind, text] of seen) joined.set(kind, (joined.get(kind) ?? "") + text);
    expect(joined.get("stdout")).toBe("outmore");
    expect(joined.get("stderr")).toBe("err");
  });

  it("splits several frames in one chunk", () => {
    const seen: string[] = [];
    const demux = new DockerStreamDemux((kind, data) => seen.push(`${kind}:${data.toString()}`));
    demux.push(Buffer.concat([frame(1, "a"), frame(2, "b"), frame(1, "c")]));
    expect(seen).toEqual(["stdout:a", "stderr:b", "stdout:c"]);
  });
});

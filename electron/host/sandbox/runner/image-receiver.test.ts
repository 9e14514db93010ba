import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { IMAGE_LIMITS, PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { ImageReceiver, pngSize } from "./image-receiver.js";
import { parseRunnerLine, type RunnerMessage } from "./runner-messages.js";

/** A real (tiny, grey) PNG of the given size: signature, IHDR, one IDAT, IEND. */
export function tinyPng(width = 2, height = 2): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4); // not checked by the host; a viewer may, so it is unused here
    return Buffer.concat([length, Buffer.from(type, "latin1"), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc(Math.min(height, 4) * (Math.min(width, 4) + 1));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

type ImageLine = Extract<RunnerMessage, { type: "image_start" | "image_data" | "image_end" }>;

/** Parses a line exactly as the session does, so the schema's checks apply too. */
function parse(value: unknown): ImageLine {
  const parsed = parseRunnerLine(JSON.stringify(value));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.message as ImageLine;
}

function linesFor(id: number, png: Buffer, name = `img-${id}.png`): ImageLine[] {
  const text = png.toString("base64");
  const lines: ImageLine[] = [parse({ type: "image_start", id, name, bytes: png.length })];
  for (let at = 0; at < text.length; at += IMAGE_LIMITS.chunkChars) {
    lines.push(
      parse({ type: "image_data", id, data: text.slice(at, at + IMAGE_LIMITS.chunkChars) }),
    );
  }
  lines.push(parse({ type: "image_end", id }));
  return lines;
}

/** Feeds lines until one is refused; the reason, or null when all were taken. */
function feed(receiver: ImageReceiver, lines: ImageLine[]): string | null {
  for (const line of lines) {
    const step = receiver.take(line);
    if (!step.ok) return step.reason;
  }
  return null;
}

describe("image lines from the runner", () => {
  it("an image_data line at its cap fits a protocol line, and chunks decode alone", () => {
    const line = JSON.stringify({
      type: "image_data",
      id: 1,
      data: "A".repeat(IMAGE_LIMITS.chunkChars),
    });
    expect(Buffer.byteLength(line)).toBeLessThan(PROTOCOL_LIMITS.lineMaxBytes);
    expect(IMAGE_LIMITS.chunkChars % 4).toBe(0);
    expect(IMAGE_LIMITS.totalBytesPerRun).toBeGreaterThanOrEqual(IMAGE_LIMITS.maxBytes);
  });

  it("puts an image together, with its hash, size and dimensions", () => {
    const png = tinyPng(30, 20);
    const receiver = new ImageReceiver();
    let done: unknown = null;
    for (const line of linesFor(1, png, "chart.png")) {
      const step = receiver.take(line);
      expect(step.ok).toBe(true);
      if (step.ok && step.image) done = step.image;
    }
    expect(done).toEqual({
      name: "chart.png",
      bytes: png.length,
      sha256: createHash("sha256").update(png).digest("hex"),
      width: 30,
      height: 20,
      png,
    });
    expect(receiver.pending).toBe(false);
  });

  it("takes a 1 MiB image split over many chunks", () => {
    const png = Buffer.concat([
      tinyPng(),
      Buffer.alloc(IMAGE_LIMITS.maxBytes - tinyPng().length, 7),
    ]);
    const lines = linesFor(1, png);
    expect(lines.length).toBeGreaterThan(10);
    const receiver = new ImageReceiver();
    expect(feed(receiver, lines)).toBeNull();
    expect(receiver.images[0]?.bytes).toBe(IMAGE_LIMITS.maxBytes);
  });

  it("refuses lines over their caps before the receiver sees them", () => {
    const refused = (value: unknown) => parseRunnerLine(JSON.stringify(value));
    expect(
      refused({ type: "image_start", id: 1, name: "a.png", bytes: IMAGE_LIMITS.maxBytes + 1 }),
    ).toEqual({
      ok: false,
      reason: `an image was over ${IMAGE_LIMITS.maxBytes} bytes`,
    });
    expect(
      refused({ type: "image_data", id: 1, data: "A".repeat(IMAGE_LIMITS.chunkChars + 4) }),
    ).toEqual({ ok: false, reason: "an image chunk was over its size" });
    for (const name of [
      "",
      "a/b.png",
      "..\u202e.png",
      "x".repeat(IMAGE_LIMITS.nameMaxChars + 1),
      "caf\u00e9.png",
      ".",
      "..",
      ".png",
      "chart",
      "chart.png.exe",
      "x".repeat(IMAGE_LIMITS.nameMaxChars - 3) + ".png",
    ]) {
      expect(refused({ type: "image_start", id: 1, name, bytes: 10 }).ok, name).toBe(false);
    }
    for (const name of ["a.png", "..png", "x".repeat(IMAGE_LIMITS.nameMaxChars - 4) + ".png"]) {
      expect(refused({ type: "image_start", id: 1, name, bytes: 10 }).ok, name).toBe(true);
    }
    for (const value of [
      { type: "image_start", id: 0, name: "a.png", bytes: 10 },
      { type: "image_start", id: IMAGE_LIMITS.perRun + 1, name: "a.png", bytes: 10 },
      { type: "image_start", id: 1, name: "a.png", bytes: 0 },
      { type: "image_start", id: 1, name: "a.png", bytes: 1.5 },
      { type: "image_data", id: 1, data: 5 },
      { type: "image_end", id: 1, extra: true },
    ]) {
      expect(refused(value).ok, JSON.stringify(value)).toBe(false);
    }
  });

  it("refuses chunks that are not strict base64", () => {
    for (const data of ["AAA", "AA=A", "AAAA====", "AA A", "AA\nA", "AA-_", "A===", "AAAA=AAA"]) {
      const receiver = new ImageReceiver();
      receiver.take(parse({ type: "image_start", id: 1, name: "a.png", bytes: 100 }));
      expect(receiver.take(parse({ type: "image_data", id: 1, data })), data).toEqual({
        ok: false,
        reason: expect.stringMatching(/not base64/) as unknown,
      });
    }
  });

  it("refuses images that are not PNGs, or of absurd dimensions", () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.alloc(40)]);
    expect(feed(new ImageReceiver(), linesFor(1, jpeg))).toBe("an image was not a PNG");
    expect(pngSize(tinyPng().subarray(0, 20))).toBeNull();
    const huge = tinyPng(IMAGE_LIMITS.maxSidePixels + 1, 10);
    expect(feed(new ImageReceiver(), linesFor(1, huge))).toMatch(/sides were not between/);
    expect(feed(new ImageReceiver(), linesFor(1, tinyPng(0, 10)))).toMatch(
      /sides were not between/,
    );
  });

  it("refuses images longer or shorter than declared", () => {
    const png = tinyPng();
    const longer = [
      parse({ type: "image_start", id: 1, name: "a.png", bytes: png.length - 3 }),
      ...linesFor(1, png).slice(1),
    ];
    expect(feed(new ImageReceiver(), longer)).toBe("an image was longer than its start declared");
    const shorter = [
      parse({ type: "image_start", id: 1, name: "a.png", bytes: png.length + 3 }),
      ...linesFor(1, png).slice(1),
    ];
    expect(feed(new ImageReceiver(), shorter)).toBe("an image was shorter than its start declared");
  });

  it("refuses images out of order, interleaved, or chunks of no open image", () => {
    const png = tinyPng();
    expect(feed(new ImageReceiver(), linesFor(2, png))).toBe("an image id was out of order");
    const [start1] = linesFor(1, png);
    const [start2] = linesFor(2, png);
    expect(feed(new ImageReceiver(), [start1!, start2!])).toBe(
      "an image started before the previous one ended",
    );
    expect(feed(new ImageReceiver(), linesFor(1, png).slice(1))).toBe(
      "an image chunk did not belong to an open image",
    );
    expect(feed(new ImageReceiver(), [parse({ type: "image_end", id: 1 })])).toBe(
      "an image end did not belong to an open image",
    );
  });

  it("refuses more images than a run may attach, and more bytes than its budget", () => {
    const png = tinyPng();
    const receiver = new ImageReceiver({ perRun: 2, totalBytesPerRun: 10 * png.length });
    expect(feed(receiver, [...linesFor(1, png), ...linesFor(2, png)])).toBeNull();
    expect(feed(receiver, linesFor(3, png))).toBe("the run sent more than 2 images");

    const tight = new ImageReceiver({ perRun: 4, totalBytesPerRun: png.length + 10 });
    expect(feed(tight, linesFor(1, png))).toBeNull();
    expect(feed(tight, linesFor(2, png))).toBe(
      `the run's images went over ${png.length + 10} bytes`,
    );
  });

  it("the default budget: two full-size images fit, nothing more does", () => {
    const full = Buffer.concat([tinyPng(), Buffer.alloc(IMAGE_LIMITS.maxBytes - tinyPng().length)]);
    const receiver = new ImageReceiver();
    expect(feed(receiver, [...linesFor(1, full), ...linesFor(2, full)])).toBeNull();
    expect(IMAGE_LIMITS.totalBytesPerRun).toBe(2 * IMAGE_LIMITS.maxBytes);
    expect(feed(receiver, linesFor(3, tinyPng()))).toBe(
      `the run's images went over ${IMAGE_LIMITS.totalBytesPerRun} bytes`,
    );
  });
});

// What a run's images cost the host to read: a run's whole image budget
// (IMAGE_LIMITS.totalBytesPerRun, as two images at IMAGE_LIMITS.maxBytes) crossing the pipe as
// image lines, each parsed and checked as run-session does (parseRunnerLine, then the
// ImageReceiver: strict base64 by a loop, the declared size, the PNG header, sha256), side by
// side with the same base64 text sent as ordinary output chunks (parseRunnerLine and the
// output capture), the cost every run could already impose. Also one hostile image chunk at its
// cap whose last character is not base64 (the loop reads all of it before refusing).
import { IMAGE_LIMITS, PROTOCOL_LIMITS, RUN_LIMITS } from "../shared/limits.js";
import { ImageReceiver } from "../electron/host/sandbox/runner/image-receiver.js";
import { OutputCapture } from "../electron/host/sandbox/runner/output-capture.js";
import {
  parseRunnerLine,
  type RunnerMessage,
} from "../electron/host/sandbox/runner/runner-messages.js";
import { median } from "./stats.js";
import { report } from "./report.js";

const ROUNDS = 15;

/** A "PNG" of exactly `bytes`: a real signature and header, then filler the host never decodes. */
function pngOf(bytes: number): Buffer {
  const png = Buffer.alloc(bytes, 0x5a);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
  png.writeUInt32BE(13, 8);
  png.write("IHDR", 12, "latin1");
  png.writeUInt32BE(640, 16);
  png.writeUInt32BE(480, 20);
  return png;
}

function imageLines(id: number, png: Buffer): string[] {
  const text = png.toString("base64");
  const lines = [
    JSON.stringify({ type: "image_start", id, name: `i${id}.png`, bytes: png.length }),
  ];
  for (let at = 0; at < text.length; at += IMAGE_LIMITS.chunkChars) {
    lines.push(
      JSON.stringify({
        type: "image_data",
        id,
        data: text.slice(at, at + IMAGE_LIMITS.chunkChars),
      }),
    );
  }
  lines.push(JSON.stringify({ type: "image_end", id }));
  return lines;
}

const images = [1, 2].flatMap((id) => imageLines(id, pngOf(IMAGE_LIMITS.maxBytes)));
const base64 = pngOf(IMAGE_LIMITS.maxBytes).toString("base64").repeat(2);
const outputs: string[] = [];
for (let at = 0; at < base64.length; at += PROTOCOL_LIMITS.outputChunkChars) {
  outputs.push(
    JSON.stringify({
      type: "output",
      stream: "stdout",
      data: base64.slice(at, at + PROTOCOL_LIMITS.outputChunkChars),
    }),
  );
}
const hostile = JSON.stringify({
  type: "image_data",
  id: 1,
  data: "A".repeat(IMAGE_LIMITS.chunkChars - 4) + "AAA!",
});

function readImages(): void {
  const receiver = new ImageReceiver();
  for (const line of images) {
    const parsed = parseRunnerLine(line);
    if (!parsed.ok) throw new Error(parsed.reason);
    const step = receiver.take(parsed.message as Extract<RunnerMessage, { type: "image_data" }>);
    if (!step.ok) throw new Error(step.reason);
  }
  if (receiver.images.length !== 2) throw new Error("the images did not come through");
}

function readOutput(): void {
  const capture = new OutputCapture(RUN_LIMITS.stdoutKeptBytes);
  for (const line of outputs) {
    const parsed = parseRunnerLine(line);
    if (!parsed.ok || parsed.message.type !== "output") throw new Error("bad output line");
    capture.append(parsed.message.data);
  }
}

function readHostile(): void {
  const receiver = new ImageReceiver();
  const start = parseRunnerLine(
    JSON.stringify({ type: "image_start", id: 1, name: "a.png", bytes: 100_000 }),
  );
  if (!start.ok) throw new Error("bad start");
  receiver.take(start.message as Extract<RunnerMessage, { type: "image_start" }>);
  const parsed = parseRunnerLine(hostile);
  if (!parsed.ok) throw new Error(parsed.reason);
  const step = receiver.take(parsed.message as Extract<RunnerMessage, { type: "image_data" }>);
  if (step.ok) throw new Error("the hostile chunk was accepted");
}

function timed(fn: () => void): number {
  fn(); // warm up: the first round pays for compiling the code paths
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

const outMs = timed(readOutput);
const imgMs = timed(readImages);
const hostileMs = timed(readHostile);
const fmt = (ms: number) => `${ms.toFixed(2).padStart(9)} ms`;
console.log(
  `image lines: a run's whole budget, ${IMAGE_LIMITS.totalBytesPerRun} bytes (median of ${ROUNDS})`,
);
console.log(`${`as ${outputs.length} output chunks (baseline)`.padEnd(52)} ${fmt(outMs)}   1.00x`);
console.log(
  `${`as ${images.length} image lines, checked and hashed`.padEnd(52)} ${fmt(imgMs)}   ${(imgMs / outMs).toFixed(2)}x`,
);
console.log(
  `${`one hostile ${IMAGE_LIMITS.chunkChars}-char chunk, refused at its end`.padEnd(52)} ${fmt(hostileMs)}`,
);
report({
  what: `the host reading a run's whole image budget (${IMAGE_LIMITS.totalBytesPerRun.toLocaleString("en")} B) as ${images.length} image lines, checked and hashed`,
  value: imgMs,
  baseline: outMs,
  baselineWhat: `the same base64 text as ${outputs.length} ordinary output chunks`,
  note: `median of ${ROUNDS}`,
});
report({
  what: `the host refusing one hostile ${IMAGE_LIMITS.chunkChars.toLocaleString("en")}-char image chunk at its last char`,
  value: hostileMs,
  note: `median of ${ROUNDS}; no baseline`,
});

import { PassThrough, Readable } from "node:stream";
import type { CliIO } from "../electron/host/cli/cli-io.js";

/** A CliIO whose output is collected, for calling run(argv) in-process. */
export function memoryIO(env: NodeJS.ProcessEnv = {}, stdinText = "") {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const controller = new AbortController();
  const io: CliIO = {
    stdin: Readable.from([Buffer.from(stdinText)]),
    stdout,
    stderr,
    env,
    signal: controller.signal,
  };
  return { io, controller, out: () => out, err: () => err };
}

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { RUN_LIMITS } from "../../../../shared/limits.js";
import type { RunImageData } from "../../sandbox/image-receiver.js";
import { EngineRefused } from "../../sandbox/engine-refused.js";
import { Sandbox, sweepOrphanContainers } from "../../sandbox/sandbox.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { ENGINE_HELP, parseEngineFlag } from "../engine-choice.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import {
  chooseRuntime,
  dockerContext,
  type DockerContext,
  parseRuntimeFlag,
  requireImage,
  requireRuntime,
  RUNTIME_HELP,
} from "../sandbox-context.js";

export const RUN_HELP = `Usage: codemode run [--timeout S] [--stdin FILE] [--images DIR] [--runtime R] [--engine E] FILE|-

Runs a Python program in a fresh sandbox container, with no wrapped servers, and prints
the run result as JSON. Exit status 0 when the run happened, even if the code raised.

  --timeout S    stop the run after S seconds (at most ${RUN_LIMITS.defaultDeadlineSeconds})
  --stdin FILE   text the program reads as standard input
  --images DIR   save the images the code attached (show(), plt.show()) as PNG files in DIR
${RUNTIME_HELP}
${ENGINE_HELP}`;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** A file the user named: one that cannot be read is a one-line error, not a stack trace. */
function readUserFile(file: string): Promise<string> {
  return readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    const why = error.code === "ENOENT" ? "no such file" : (error.code ?? error.message);
    throw new UserError(`cannot read ${file}: ${why}`);
  });
}

/**
 * Writes each image into `dir` under its name (the host accepts only plain names ending in
 * .png, so none can leave the folder), never over an existing file: a taken name gets -2, -3...
 */
async function saveImages(dir: string, images: RunImageData[], io: CliIO): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const image of images) {
    const stem = image.name.slice(0, -".png".length);
    for (let n = 1; ; n++) {
      const file = path.join(dir, n === 1 ? image.name : `${stem}-${n}.png`);
      try {
        await writeFile(file, image.png, { flag: "wx" });
        writeLine(io.stderr, `saved ${file}`);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new UserError(`cannot write ${file}: ${(error as Error).message}`);
        }
      }
    }
  }
}

export function parseSeconds(value: string, flag: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UserError(`${flag} takes a positive number of seconds, not ${JSON.stringify(value)}`);
  }
  return seconds;
}

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      timeout: { type: "string" },
      stdin: { type: "string" },
      images: { type: "string" },
      runtime: { type: "string" },
      engine: { type: "string" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    writeLine(io.stdout, RUN_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UserError("codemode run takes one FILE (or - for standard input)");
  const file = positionals[0] as string;
  const code = file === "-" ? await readAll(io.stdin) : await readUserFile(file);
  const stdin = values.stdin === undefined ? "" : await readUserFile(values.stdin);
  const timeout =
    values.timeout === undefined ? undefined : parseSeconds(values.timeout, "--timeout");
  const runtime = parseRuntimeFlag(values.runtime);
  const engine = parseEngineFlag(values.engine);

  const ctx = await dockerContext(io.env, engine);
  try {
    return await runOn(ctx, { code, stdin, timeout, runtime, images: values.images }, io);
  } finally {
    // An SSH engine's connection would keep the process alive.
    ctx.close();
  }
}

async function runOn(
  ctx: DockerContext,
  run: {
    code: string;
    stdin: string;
    timeout: number | undefined;
    runtime: SandboxRuntime | null;
    images: string | undefined;
  },
  io: CliIO,
): Promise<number> {
  const choice = await chooseRuntime(ctx, run.runtime, (message) =>
    writeLine(io.stderr, `codemode run: ${message}`),
  );
  await requireRuntime(ctx, choice);
  await requireImage(ctx);
  await sweepOrphanContainers(ctx.docker, ctx.owner);
  // One run, so no warm container: it would only be started to be thrown away. So nothing is
  // preloaded either: the run's cold container imports only what its code imports.
  const sandbox = new Sandbox({
    docker: ctx.docker,
    image: ctx.tag,
    owner: ctx.owner,
    poolSize: 0,
    runtime: choice.runtime,
  });
  const images: RunImageData[] = [];
  try {
    const result = await sandbox.run(
      { code: run.code, stdin: run.stdin, deadlineSeconds: run.timeout },
      { signal: io.signal, onImage: (image) => images.push(image) },
    );
    writeLine(io.stdout, JSON.stringify(result, null, 2));
    if (run.images !== undefined) await saveImages(run.images, images, io);
    return 0;
  } catch (error) {
    // The engine's own words, on one line, naming the engine: not a stack trace, never a hang.
    if (error instanceof EngineRefused) {
      throw new UserError(`${error.message} (on ${ctx.engineName}, ${ctx.endpoint})`);
    }
    throw error;
  } finally {
    await sandbox.close();
  }
}

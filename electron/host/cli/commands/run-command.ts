import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { RUN_LIMITS } from "../../../../shared/limits.js";
import type { RunImageData } from "../../core/ports/run-types.js";
import { EngineRefused } from "../../sandbox/engine-refused.js";
import { Sandbox, sweepOrphanContainers } from "../../sandbox/sandbox.js";
import { isParseArgsError, UserError, writeLine, type CliIO } from "../cli-io.js";
import { ENGINE_HELP, parseEngineFlag } from "../engine-choice.js";
import { RUN_EXIT, RUN_EXIT_HELP, runExitCode } from "../run-exit.js";
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
the run result as JSON (also when the code raised or the run was stopped).

  --timeout S    stop the run after S seconds (at most ${RUN_LIMITS.defaultDeadlineSeconds})
  --stdin FILE   text the program reads as standard input
  --images DIR   save the images the code attached (show(), plt.show()) as PNG files in DIR
${RUNTIME_HELP}
${ENGINE_HELP}

${RUN_EXIT_HELP}`;

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

interface RunInput {
  code: string;
  stdin: string;
  timeout: number | undefined;
  runtime: ReturnType<typeof parseRuntimeFlag>;
  engine: string | null;
  images: string | undefined;
}

/** The options and files of the command line; "help" when --help was asked for. */
async function readInput(argv: string[], io: CliIO): Promise<RunInput | "help"> {
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
  if (values.help) return "help";
  if (positionals.length !== 1)
    throw new UserError("codemode run takes one FILE (or - for standard input)");
  const file = positionals[0] as string;
  return {
    code: file === "-" ? await readAll(io.stdin) : await readUserFile(file),
    stdin: values.stdin === undefined ? "" : await readUserFile(values.stdin),
    timeout: values.timeout === undefined ? undefined : parseSeconds(values.timeout, "--timeout"),
    runtime: parseRuntimeFlag(values.runtime),
    engine: parseEngineFlag(values.engine),
    images: values.images,
  };
}

/** A UserError (or a parseArgs error) as one line and the given status; anything else rethrown. */
function failWith(status: number, io: CliIO): (error: unknown) => number {
  return (error) => {
    if (!(error instanceof UserError) && !isParseArgsError(error)) throw error;
    writeLine(io.stderr, `codemode run: ${(error as Error).message}`);
    return status;
  };
}

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  let input: RunInput | "help";
  try {
    input = await readInput(argv, io);
  } catch (error) {
    return failWith(RUN_EXIT.usage, io)(error);
  }
  if (input === "help") {
    writeLine(io.stdout, RUN_HELP);
    return 0;
  }
  let ctx: DockerContext;
  try {
    ctx = await dockerContext(io.env, input.engine);
  } catch (error) {
    return failWith(RUN_EXIT.unavailable, io)(error);
  }
  try {
    return await runOn(ctx, input, io);
  } finally {
    // An SSH engine's connection would keep the process alive.
    ctx.close();
  }
}

async function runOn(ctx: DockerContext, input: RunInput, io: CliIO): Promise<number> {
  const { code, stdin, timeout, runtime, images: imagesDir } = input;
  let choice: Awaited<ReturnType<typeof chooseRuntime>>;
  try {
    choice = await chooseRuntime(ctx, runtime, (message) =>
      writeLine(io.stderr, `codemode run: ${message}`),
    );
    await requireRuntime(ctx, choice);
    await requireImage(ctx);
    await sweepOrphanContainers(ctx.engine, ctx.owner);
  } catch (error) {
    return failWith(RUN_EXIT.unavailable, io)(error);
  }
  // One run, so no warm container: it would only be started to be thrown away. So nothing is
  // preloaded either: the run's cold container imports only what its code imports.
  const sandbox = new Sandbox({
    engine: ctx.engine,
    image: ctx.tag,
    owner: ctx.owner,
    poolSize: 0,
    runtime: choice.runtime,
  });
  const images: RunImageData[] = [];
  try {
    let result;
    try {
      result = await sandbox.run(
        { code, stdin, deadlineSeconds: timeout },
        { signal: io.signal, onImage: (image) => images.push(image) },
      );
    } catch (error) {
      // The engine failed under the run (Docker went away, the container could not be made,
      // the engine refused it): its own words on one line, naming the engine, never a hang.
      const message = error instanceof Error ? error.message : String(error);
      const where =
        error instanceof EngineRefused ? ` (on ${ctx.engineName}, ${ctx.endpoint})` : "";
      writeLine(io.stderr, `codemode run: the sandbox could not run the code: ${message}${where}`);
      return RUN_EXIT.unavailable;
    }
    writeLine(io.stdout, JSON.stringify(result, null, 2));
    if (imagesDir !== undefined) {
      try {
        await saveImages(imagesDir, images, io);
      } catch (error) {
        return failWith(RUN_EXIT.usage, io)(error);
      }
    }
    return runExitCode(result);
  } finally {
    await sandbox.close();
  }
}

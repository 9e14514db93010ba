import { parseArgs } from "node:util";
import { sandboxImageStatus } from "../../sandbox/image-status.js";
import { probeImage } from "../../sandbox/image-probe.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { ProgressBar } from "../progress-bar.js";
import { ensureBaseImage, otherEngineSources } from "../../sandbox/container-engine/base-image.js";
import { ENGINE_HELP, parseEngineFlag } from "../engine-choice.js";
import { dockerContext, requireImage, type DockerContext } from "../sandbox-context.js";

export const IMAGE_HELP = `Usage: codemode image build [--verbose] [--engine E] [--base-from FILE]
       codemode image status [--engine E]

  build    builds the sandbox image from sandbox-image/ (tagged by a hash of it). An
           engine that lacks the base image gets it from another engine this machine
           reaches, or from --base-from FILE (made with docker save -o FILE IMAGE)
  status   prints the image's tag, size, creation date, Python version and whether
           it matches the current sandbox-image/ (current)
${ENGINE_HELP}`;

export async function imageCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      verbose: { type: "boolean" },
      engine: { type: "string" },
      "base-from": { type: "string" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const sub = positionals[0];
  if (values.help || sub === undefined) {
    writeLine(io.stdout, IMAGE_HELP);
    return values.help ? 0 : 2;
  }
  if (sub !== "build" && sub !== "status") {
    throw new UserError(`unknown image command ${JSON.stringify(sub)}: use build or status`);
  }
  const ctx = await dockerContext(io.env, parseEngineFlag(values.engine));
  try {
    if (sub === "build") return await build(ctx, io, values.verbose === true, values["base-from"]);
    return await status(ctx, io);
  } finally {
    ctx.close();
  }
}

async function build(
  ctx: DockerContext,
  io: CliIO,
  verbose: boolean,
  baseFrom: string | undefined,
): Promise<number> {
  const others = baseFrom === undefined ? await otherEngineSources(ctx.endpoint) : null;
  try {
    const sources = others?.sources ?? [{ kind: "archive" as const, file: baseFrom ?? "" }];
    const base = await ensureBaseImage(ctx.engine, ctx.files, sources, (line) =>
      writeLine(io.stderr, line),
    );
    if (base.done === "left-to-pull" && base.looked.length > 0) {
      writeLine(
        io.stderr,
        `no other engine has ${base.image} (looked at ${base.looked.join(", ")}): the build pulls it`,
      );
    }
  } finally {
    others?.close();
  }
  const bar = new ProgressBar(io.stderr);
  writeLine(io.stderr, `Building ${ctx.tag} on ${ctx.engineName} (${ctx.endpoint})`);
  let step = 0;
  let total = 1;
  const tag = await ctx.engine.buildImage(ctx.files, (event) => {
    if (event.kind === "step") {
      step = event.step;
      total = event.total;
      bar.update(step - 1, total, event.text.slice(0, 60));
    } else if (verbose) {
      writeLine(io.stderr, event.text);
    }
  });
  bar.update(total, total, "done");
  bar.done();
  writeLine(io.stdout, tag);
  return 0;
}

async function status(ctx: DockerContext, io: CliIO): Promise<number> {
  const image = await sandboxImageStatus(ctx.engine, ctx.files);
  const lines = [`tag:      ${image.tag}`];
  if (!image.present) {
    lines.push("current:  no (not built; run `codemode image build`)");
    if (image.stale.length > 0) lines.push(`older:    ${image.stale.join(", ")}`);
    writeLine(io.stdout, lines.join("\n"));
    return 1;
  }
  await requireImage(ctx);
  const sandbox = new Sandbox({
    engine: ctx.engine,
    image: ctx.tag,
    owner: ctx.owner,
    poolSize: 0,
  });
  try {
    const probe = await probeImage(sandbox);
    lines.push(
      `current:  yes`,
      `size:     ${((image.sizeBytes ?? 0) / 1024 / 1024).toFixed(0)} MiB`,
      `created:  ${image.created ?? "?"}`,
      `python:   ${probe.python}`,
      `libraries: ${Object.entries(probe.libraries)
        .map(([name, version]) => `${name} ${version}`)
        .join(", ")}`,
    );
  } finally {
    await sandbox.close();
  }
  if (image.stale.length > 0) lines.push(`older:    ${image.stale.join(", ")} (safe to remove)`);
  writeLine(io.stdout, lines.join("\n"));
  return 0;
}

import { parseArgs } from "node:util";
import { buildSandboxImage, sandboxImageStatus } from "../../sandbox/image.js";
import { probeImage } from "../../sandbox/image-probe.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { ProgressBar } from "../progress-bar.js";
import { dockerContext, requireImage } from "../sandbox-context.js";

export const IMAGE_HELP = `Usage: codemode image build [--verbose]
       codemode image status

  build    builds the sandbox image from sandbox-image/ (tagged by a hash of it)
  status   prints the image's tag, size, creation date, Python version and whether
           it matches the current sandbox-image/ (current)`;

export async function imageCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { verbose: { type: "boolean" }, help: { type: "boolean" } },
    allowPositionals: true,
  });
  const sub = positionals[0];
  if (values.help || sub === undefined) {
    writeLine(io.stdout, IMAGE_HELP);
    return values.help ? 0 : 2;
  }
  if (sub === "build") return build(io, values.verbose === true);
  if (sub === "status") return status(io);
  throw new UserError(`unknown image command ${JSON.stringify(sub)}: use build or status`);
}

async function build(io: CliIO, verbose: boolean): Promise<number> {
  const ctx = await dockerContext(io.env);
  const bar = new ProgressBar(io.stderr);
  writeLine(io.stderr, `Building ${ctx.tag} on ${ctx.endpoint}`);
  let step = 0;
  let total = 1;
  const tag = await buildSandboxImage(ctx.docker, ctx.files, (event) => {
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

async function status(io: CliIO): Promise<number> {
  const ctx = await dockerContext(io.env);
  const image = await sandboxImageStatus(ctx.docker, ctx.files);
  const lines = [`tag:      ${image.tag}`];
  if (!image.present) {
    lines.push("current:  no (not built; run `codemode image build`)");
    if (image.stale.length > 0) lines.push(`older:    ${image.stale.join(", ")}`);
    writeLine(io.stdout, lines.join("\n"));
    return 1;
  }
  await requireImage(ctx);
  const sandbox = new Sandbox({
    docker: ctx.docker,
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

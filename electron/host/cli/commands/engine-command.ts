import { parseArgs } from "node:util";
import {
  findEngine,
  summary,
  type EngineSummary,
} from "../../sandbox/container-engine/find-engine.js";
import {
  preferredCandidate,
  probeCandidate,
  processCandidateEnv,
} from "../../sandbox/container-engine/engine-detect.js";
import { engineCandidates } from "../../sandbox/container-engine/engine-candidates.js";
import { processConnectEnv } from "../../sandbox/container-engine/engine-connect.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { enginePreference, parseEngineFlag, saveEngineChoice } from "../engine-choice.js";
import os from "node:os";
import path from "node:path";

export const ENGINE_COMMAND_HELP = `Usage: codemode engine list
       codemode engine use NAME|URL|auto

  list   the places Code Mode looks for a container engine (Docker, Docker Desktop,
         Podman, Colima, Rancher Desktop, OrbStack, DOCKER_HOST, the Docker context),
         whether each is there and answers, and which one is used (*)
  use    uses this engine from now on: a NAME from the list, or a URL
         (unix:///path, tcp://host:2376 with DOCKER_CERT_PATH, ssh://user@host);
         auto goes back to looking for one. Saved in the app's settings.json: the
         app and \`codemode run\`/\`serve\` use it (a running app from its next start,
         or choose it on the Sandbox page)`;

function state(engine: EngineSummary): string {
  if (engine.answered)
    return `answers (${engine.kind === "podman" ? "Podman" : "Docker"} ${engine.version ?? "?"})`;
  if (!engine.found) return "not there";
  return `does not answer: ${engine.problem ?? "?"}`;
}

/** The list as a table a person reads: name, product, where, state; the one in use starred. */
export function engineTable(engines: readonly EngineSummary[], used: string | null): string {
  const rows = engines.map((e) => [
    e.name === used ? "*" : " ",
    e.name,
    e.product,
    e.url,
    state(e),
  ]);
  const widths = [1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), 4));
  return rows
    .map((r) =>
      [
        r[0],
        r[1]!.padEnd(widths[0]!),
        r[2]!.padEnd(widths[1]!),
        r[3]!.padEnd(widths[2]!),
        r[4],
      ].join("  "),
    )
    .join("\n");
}

export async function engineCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: "boolean" } },
    allowPositionals: true,
  });
  const [sub, target, ...extra] = positionals;
  if (values.help || sub === undefined) {
    writeLine(io.stdout, ENGINE_COMMAND_HELP);
    return values.help ? 0 : 2;
  }
  if (sub === "list") return list(io);
  if (sub === "use") {
    if (target === undefined || extra.length > 0)
      throw new UserError("engine use takes one NAME, URL or auto");
    return use(io, target);
  }
  throw new UserError(`unknown engine command ${JSON.stringify(sub)}: use list or use`);
}

async function list(io: CliIO): Promise<number> {
  const preference = await enginePreference(io.env, null);
  const env = await processCandidateEnv(io.env);
  const connectEnv = { ...processConnectEnv(), env: io.env };
  const { candidates, problems } = engineCandidates(env);
  const found = await findEngine({ env: io.env, preference, candidateEnv: env });
  if (found.state === "ready") found.close?.();
  // Every place, even when a choice (or DOCKER_HOST) decided without looking at the others.
  const probes = await Promise.all(
    candidates.map(async (c) => summary((await probeCandidate(c, connectEnv)).probe)),
  );
  const chosenUrl = found.state === "ready" ? found.endpoint : null;
  const extra = (found.engines ?? []).filter((e) => !probes.some((p) => p.url === e.url));
  const all = [...extra, ...probes];
  const used = all.find((e) => e.url === chosenUrl)?.name ?? null;
  writeLine(io.stdout, engineTable(all, used));
  for (const problem of problems) writeLine(io.stderr, `codemode engine: ${problem}`);
  if (preference !== "")
    writeLine(io.stdout, `\nchosen: ${preference} (codemode engine use auto goes back to looking)`);
  if (found.state !== "ready") {
    writeLine(io.stdout, `\n${found.message}`);
    return 1;
  }
  return 0;
}

async function use(io: CliIO, target: string): Promise<number> {
  const choice = target === "auto" ? "" : (parseEngineFlag(target) ?? "");
  if (choice !== "") {
    const env = await processCandidateEnv(io.env);
    const home = os.homedir();
    const tls = { verify: true, certDir: io.env.DOCKER_CERT_PATH || path.join(home, ".docker") };
    const named = preferredCandidate(choice, engineCandidates(env).candidates, tls);
    if ("problem" in named) throw new UserError(named.problem);
    const look = await probeCandidate(named.candidate, { ...processConnectEnv(), env: io.env });
    const file = await saveEngineChoice(io.env, choice);
    writeLine(io.stdout, `Code Mode uses ${choice} from now on (saved in ${file}).`);
    if (!look.probe.answered) {
      writeLine(io.stderr, `codemode engine: it does not answer now: ${look.probe.problem ?? "?"}`);
      return 1;
    }
    return 0;
  }
  const file = await saveEngineChoice(io.env, "");
  writeLine(io.stdout, `Code Mode looks for an engine again (saved in ${file}).`);
  return 0;
}

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { discardBridgeEvents } from "../../core/bridge/bridge-events.js";
import { TaintRegistry } from "../../core/bridge/taint.js";
import { CatalogError } from "../../core/catalog/catalog-builder.js";
import type { CodeModeEngine } from "../../core/engine/code-mode-engine.js";
import { hostWorkspaces, runEngineBuilder } from "../../app/index.js";
import { createRunPythonServer } from "../../ingress/mcp/run-python-server.js";
import { Sandbox, sweepOrphanContainers } from "../../sandbox/sandbox.js";
import { ServerSet } from "../../servers/server-set.js";
import { resolveServerPath } from "../../servers/server-path.js";
import { ServerStartError } from "../../servers/wrapped-server.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import {
  appSettings,
  choosePreload,
  chooseRuntime,
  dockerContext,
  requireImage,
  requireRuntime,
  type DockerContext,
} from "../sandbox-context.js";
import { parseServeOptions, SERVE_HELP, type ServeOptions } from "./serve-options.js";
import { openServePins } from "./serve-pins.js";
import { packageVersion } from "../../util/package-version.js";
import { SETTINGS_BOUNDS } from "../../../../shared/limits.js";

/** `serve` has one client, its stdio peer: taint is kept for the life of the process. */
const SERVE_CLIENT = "stdio";

export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const options = await parseServeOptions(argv, io.env);
  if (options.help) {
    writeLine(io.stdout, SERVE_HELP);
    return 0;
  }
  const ctx = await dockerContext(io.env, options.engine);
  try {
    return await serveOn(ctx, options, io);
  } finally {
    // An SSH engine's connection would keep the process alive.
    ctx.close();
  }
}

async function serveOn(ctx: DockerContext, options: ServeOptions, io: CliIO): Promise<number> {
  const choice = await chooseRuntime(ctx, options.runtime, (message) =>
    writeLine(io.stderr, `codemode serve: ${message}`),
  );
  await requireRuntime(ctx, choice);
  await requireImage(ctx);
  await sweepOrphanContainers(ctx.engine, ctx.owner);

  // A client starts `serve` with its own, often minimal, PATH: servers get the user's.
  const serverPath = await resolveServerPath({ env: io.env });
  const servers = new ServerSet(options.config, { serverOptions: { path: serverPath.path } });
  servers.on("status", (name, state) => {
    if (state.status === "failed") {
      writeLine(
        io.stderr,
        `codemode serve: server ${name} failed: ${state.lastError ?? "unknown error"}`,
      );
    }
  });
  try {
    await servers.open();
  } catch (error) {
    if (error instanceof ServerStartError) {
      const tail = error.stderrTail.length ? `\n  ${error.stderrTail.join("\n  ")}` : "";
      throw new UserError(`${error.message}${tail}`);
    }
    throw error;
  }

  const engineBuilder = runEngineBuilder();
  let engine: CodeModeEngine | null = null;
  // The app's workspaces and limits, kept under the same data directory: serve's one client
  // has its own workspaces there (SERVE_CLIENT), and serve writes no log of their changes.
  const settings = await appSettings(ctx.home);
  const workspaces = hostWorkspaces(
    ctx.home,
    () => settings,
    null,
    (line) => writeLine(io.stderr, `codemode serve: ${line}`),
  );
  await workspaces.start();
  const sandbox = new Sandbox({
    engine: ctx.engine,
    image: ctx.tag,
    owner: ctx.owner,
    deadlineSeconds: options.deadlineSeconds,
    runtime: choice.runtime,
    preload: await choosePreload(ctx, options.preload),
    stagedTools: engineBuilder.stagedTools,
    slots: workspaces.slots,
  });
  // Pins for a --config file's servers (beside it); a server given after -- has none.
  const pins =
    options.configFile === null
      ? null
      : await openServePins(options.configFile, servers, io, () => engine?.rebuild());
  try {
    try {
      engine = engineBuilder.build({
        servers,
        sandbox,
        serverTools: pins?.serverTools,
        workspaces: workspaces.store,
        attachments: workspaces.attachments,
        taint: new TaintRegistry(),
        // serve writes nothing to disk: decisions reach the code, not a log.
        events: discardBridgeEvents,
        prefixWithServer: options.prefixWithServer,
        settings: { maxCallsPerRun: options.maxCalls },
        // "ask" in the config still holds: only the client can be asked here (elicitation).
        approvals: {
          config: () => servers.config,
          record: () => undefined,
          changed: () => undefined,
          timeoutSeconds: SETTINGS_BOUNDS.approvalTimeoutSeconds.default,
          userPresent: false,
        },
      }).engine;
    } catch (error) {
      if (error instanceof CatalogError) throw new UserError(error.message);
      throw error;
    }
    for (const warning of engine.catalog.warnings) {
      writeLine(io.stderr, `codemode serve: ${warning}`);
    }
    const live = engine;
    let shownWarnings = new Set(live.catalog.warnings);
    live.onCatalogChange(() => {
      for (const warning of live.catalog.warnings) {
        if (!shownWarnings.has(warning)) writeLine(io.stderr, `codemode serve: ${warning}`);
      }
      shownWarnings = new Set(live.catalog.warnings);
    });
    live.onCatalogError((message) =>
      writeLine(
        io.stderr,
        `codemode serve: the tools of a server changed but cannot be used: ${message}; keeping the previous tools that did not change`,
      ),
    );

    const { server, closed } = createRunPythonServer(engine, {
      clientKey: () => SERVE_CLIENT,
      version: packageVersion(),
      readAttachment: workspaces.readAttachment,
    });
    const transport = new StdioServerTransport(io.stdin, io.stdout);
    await server.connect(transport);
    // The SDK's stdio transport does not notice the end of its input: close it ourselves.
    const endOfInput = (): void => void transport.close();
    io.stdin.once("end", endOfInput);
    io.stdin.once("close", endOfInput);
    io.signal.addEventListener("abort", endOfInput, { once: true });
    await closed;
    return 0;
  } finally {
    engine?.close();
    await Promise.allSettled([sandbox.close(), servers.close(), pins?.close()]);
    await workspaces.stop();
  }
}

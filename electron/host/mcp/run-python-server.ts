import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { RunContext, RunPythonInput } from "../engine/code-mode-engine.js";
import { RunNotStarted } from "../engine/run-not-started.js";
import {
  RUN_PYTHON_TOOL,
  runPythonInput,
  runPythonInputJsonSchema,
  runResultJsonSchema,
} from "./run-python-schema.js";

/** What a run_python server needs: the engine, or the host's wrapper around it. */
export interface RunPythonService {
  description(): string;
  run(input: RunPythonInput, context: RunContext): Promise<RunResult>;
  onCatalogChange(listener: () => void): () => void;
}

export interface RunPythonServerOptions {
  /** Whose taint a run uses, from the client's `initialize` (serve: one fixed key). */
  clientKey: (clientInfo: { name: string; version: string } | undefined) => string;
  version: string;
  /** Aborted when the connection goes away: its runs are cancelled and their containers removed. */
  signal?: AbortSignal;
}

function invalid(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `run_python: ${message}` }] };
}

/**
 * One MCP server with one tool, run_python, for one connection (the SDK's Server holds
 * per-connection state, so each connection gets its own). A run that raised is a normal
 * result; only invalid input is a tool error.
 */
export function createRunPythonServer(
  engine: RunPythonService,
  options: RunPythonServerOptions,
): { server: Server; closed: Promise<void> } {
  const server = new Server(
    { name: "codemode", version: options.version },
    { capabilities: { tools: { listChanged: true } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: RUN_PYTHON_TOOL,
        description: engine.description(),
        inputSchema: runPythonInputJsonSchema,
        outputSchema: runResultJsonSchema,
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name !== RUN_PYTHON_TOOL) {
      return invalid(
        `unknown tool ${JSON.stringify(request.params.name)}: the only tool is run_python`,
      );
    }
    const parsed = runPythonInput.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) =>
        issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
      );
      return invalid(`invalid input: ${problems.join("; ")}`);
    }
    let result: RunResult;
    try {
      result = await engine.run(parsed.data, {
        client: options.clientKey(server.getClientVersion()),
        signal: options.signal ? AbortSignal.any([extra.signal, options.signal]) : extra.signal,
      });
    } catch (error) {
      // Our own refusals say what to do; anything else is a host fault, named only by type.
      if (error instanceof RunNotStarted) return invalid(error.message);
      return invalid(
        `the run failed on the host side (${error instanceof Error ? error.name : "Error"})`,
      );
    }
    return {
      structuredContent: { ...result },
      content: [{ type: "text", text: JSON.stringify(result) }],
    };
  });

  const unsubscribe = engine.onCatalogChange(() => {
    void server.sendToolListChanged().catch(() => undefined);
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      unsubscribe();
      resolve();
    };
  });
  return { server, closed };
}

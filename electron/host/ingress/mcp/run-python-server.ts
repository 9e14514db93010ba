import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AnyObjectSchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { RUN_RESULT_META_KEY, runFailed, type RunResult } from "../../../../shared/run-result.js";
import type { RunContext, RunPythonInput } from "../../core/engine/code-mode-engine.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";
import type { RunImageData } from "../../core/ports/run-types.js";
import { runPythonContent } from "../../core/engine/run-python-content.js";
import { ATTACHMENT_URI_PREFIX } from "../../sandbox/workspaces/attachment-store.js";
import { clientElicit } from "./client-elicit.js";
import {
  RUN_PYTHON_TOOL,
  runPythonInput,
  runPythonInputJsonSchema,
} from "../../core/engine/run-python-schema.js";
import { startRunProgress } from "./run-progress.js";
import {
  readSkillGuide,
  SKILL_DESCRIPTION,
  SKILL_PROMPT_NAME,
  SKILL_RESOURCE_URI,
} from "./skill-guide.js";

/** An unknown tool name a client sent to run_python, as quoted back in the error. */
export const UNKNOWN_TOOL_SHOWN_MAX_CHARS = 64;

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
  /**
   * Told of the connection's one initialize, once it is answered: the client's name from then on
   * is the one its runs go by.
   */
  onInitialize?: (clientInfo: { name: string; version: string }) => void;
  /**
   * A file a run of `client` attached, by its codemode:// link; null when there is none (or it
   * is another client's). Absent: no attached file can be read.
   */
  readAttachment?: (
    uri: string,
    client: string,
  ) => Promise<{ mimeType: string; data: Buffer } | null>;
}

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

/** A -32002 answer: the attached file is not there, or not the asking client's. */
class ResourceNotFound extends Error {
  readonly code = RESOURCE_NOT_FOUND;
}

function invalid(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `run_python: ${message}` }] };
}

/**
 * tools/call as it arrives, before any check: the SDK's Server checks it against its own
 * schema first and answers a bad one with a multi-line zod dump, so we take it raw and answer
 * each wrong shape in one line.
 */
const rawToolCall = z.object({ method: z.literal("tools/call"), params: z.unknown() });
type RawToolCall = z.infer<typeof rawToolCall>;
type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type ServerHandlerExtra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];
type ServerHandlerResult = ReturnType<Parameters<Server["setRequestHandler"]>[1]>;

/**
 * A -32602 answer. Not the SDK's McpError: that one puts "MCP error -32602: " into the message
 * on the wire, and the client's McpError then adds it a second time.
 */
class InvalidParams extends Error {
  readonly code = ErrorCode.InvalidParams;
}

/** A -32600 answer (the request is not allowed here), for the same reason as InvalidParams. */
class InvalidRequest extends Error {
  readonly code = ErrorCode.InvalidRequest;
}

/**
 * One initialize per connection. The SDK's Server takes any number and lets each replace the
 * client's name, which names the connection in the audit log and is the taint key of the
 * session's runs: a client could be logged as one client and run, tainted or not, as another.
 * The Streamable HTTP transport refuses a second one itself; the local socket did not.
 *
 * The SDK's Server registers its own initialize handler through setRequestHandler as it is
 * made: this subclass wraps that handler as it is registered, so the answer is still the SDK's
 * own (capabilities, protocol version, the client's info kept for getClientVersion), given
 * once. client-initialize-once.int.test.ts fails should an SDK register it another way.
 */
class OneInitializeServer extends Server {
  /** Told of the connection's one initialize, once it is answered. */
  onInitializeAnswered?: ((clientInfo: { name: string; version: string }) => void) | undefined;

  override setRequestHandler<T extends AnyObjectSchema>(
    schema: T,
    handler: (request: SchemaOutput<T>, extra: ServerHandlerExtra) => ServerHandlerResult,
  ): void {
    if ((schema as unknown) !== InitializeRequestSchema) {
      super.setRequestHandler(schema, handler);
      return;
    }
    let initialized = false;
    super.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
      if (initialized) {
        throw new InvalidRequest(
          "initialize: this connection is initialized already; open a new connection for a new session",
        );
      }
      initialized = true;
      const result = await handler(request as SchemaOutput<T>, extra);
      this.onInitializeAnswered?.(request.params.clientInfo);
      return result;
    });
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** The run_python arguments of a tools/call, or a -32602 naming what is wrong with it. */
function toolCallArguments(params: unknown): Record<string, unknown> {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new InvalidParams("tools/call: params must be an object");
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (name !== RUN_PYTHON_TOOL) {
    const shown =
      typeof name === "string"
        ? JSON.stringify(name.slice(0, UNKNOWN_TOOL_SHOWN_MAX_CHARS))
        : describeType(name);
    throw new InvalidParams(
      `tools/call: unknown tool ${shown}: the only tool is ${RUN_PYTHON_TOOL}`,
    );
  }
  if (args === undefined) return {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new InvalidParams(`tools/call: arguments must be an object, got ${describeType(args)}`);
  }
  return args as Record<string, unknown>;
}

/**
 * One MCP server with one tool, run_python, for one connection (the SDK's Server holds
 * per-connection state, so each connection gets its own). A run whose code raised or that was
 * stopped is a tool error (`isError`) carrying the run's text and result, as any other run;
 * invalid input is a tool error with one line saying what is wrong.
 */
export function createRunPythonServer(
  engine: RunPythonService,
  options: RunPythonServerOptions,
): { server: Server; closed: Promise<void> } {
  const server = new OneInitializeServer(
    { name: "codemode", version: options.version },
    // logging: clients (and the conformance suite) set a level with logging/setLevel; the
    // SDK answers it and keeps the level per session.
    { capabilities: { tools: { listChanged: true }, prompts: {}, resources: {}, logging: {} } },
  );
  server.onInitializeAnswered = options.onInitialize;

  // SKILL.md, offered as a prompt and as a resource, so a client that shows either can load
  // the guide without copying files.
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: SKILL_PROMPT_NAME, description: SKILL_DESCRIPTION }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== SKILL_PROMPT_NAME) {
      throw new InvalidParams(
        `prompts/get: unknown prompt ${JSON.stringify(request.params.name.slice(0, UNKNOWN_TOOL_SHOWN_MAX_CHARS))}: the only prompt is ${SKILL_PROMPT_NAME}`,
      );
    }
    return {
      description: SKILL_DESCRIPTION,
      messages: [{ role: "user", content: { type: "text", text: await readSkillGuide() } }],
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: SKILL_RESOURCE_URI,
        name: "SKILL.md",
        description: SKILL_DESCRIPTION,
        mimeType: "text/markdown",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri.startsWith(ATTACHMENT_URI_PREFIX)) {
      // Only the client whose run attached it: any other gets what a file never made gets.
      const client = options.clientKey(server.getClientVersion());
      const file = (await options.readAttachment?.(uri, client)) ?? null;
      if (file === null) {
        throw new ResourceNotFound(
          `resources/read: no file ${JSON.stringify(uri.slice(0, UNKNOWN_TOOL_SHOWN_MAX_CHARS * 2))}: it was never attached, is no longer kept, or another client's run attached it`,
        );
      }
      return { contents: [{ uri, mimeType: file.mimeType, blob: file.data.toString("base64") }] };
    }
    if (uri !== SKILL_RESOURCE_URI) {
      throw new InvalidParams(
        `resources/read: unknown resource ${JSON.stringify(uri.slice(0, UNKNOWN_TOOL_SHOWN_MAX_CHARS))}: the resources are ${SKILL_RESOURCE_URI} and the files runs attach (${ATTACHMENT_URI_PREFIX}...)`,
      );
    }
    return {
      contents: [
        { uri: SKILL_RESOURCE_URI, mimeType: "text/markdown", text: await readSkillGuide() },
      ],
    };
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: RUN_PYTHON_TOOL,
        description: engine.description(),
        inputSchema: runPythonInputJsonSchema,
        // No outputSchema: clients that pass tools/list to the model whole would make it pay
        // for the result's shape in every conversation, and the model reads the content's
        // text, not the shape. Programs read the result in _meta (docs/clients.md, "run_python's result").
      },
    ],
  }));

  // Protocol's own registration, not Server's: see rawToolCall. A protocol-level mistake
  // (unknown tool, arguments not an object) is a -32602 error; arguments a model can fix
  // (empty code, a typo'd key) stay a tool error, which the model sees and corrects.
  Protocol.prototype.setRequestHandler.call(
    server,
    rawToolCall,
    async (request: RawToolCall, extra: ToolCallExtra): Promise<CallToolResult> => {
      const parsed = runPythonInput.safeParse(toolCallArguments(request.params));
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) =>
          issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
        );
        return invalid(`invalid input: ${problems.join("; ")}`);
      }
      let result: RunResult;
      const images: RunImageData[] = [];
      // From before the run waits for a slot: a client that resets its timeout on progress
      // waits through the queue too.
      const stopProgress = startRunProgress(extra._meta, extra);
      try {
        result = await engine.run(parsed.data, {
          client: options.clientKey(server.getClientVersion()),
          onImage: (image) => images.push(image),
          signal: options.signal ? AbortSignal.any([extra.signal, options.signal]) : extra.signal,
          elicit: clientElicit(server, extra.requestId),
        });
      } catch (error) {
        // Our own refusals say what to do; anything else is a host fault, named only by type.
        if (error instanceof RunNotStarted) return invalid(error.message);
        return invalid(
          `the run failed on the host side (${error instanceof Error ? error.name : "Error"})`,
        );
      } finally {
        stopProgress();
      }
      // The content is what the model reads: compact text, then the images themselves. The
      // whole result (images by name and size) is for programs, in _meta, not
      // structuredContent, which some clients hand the model instead of the text (see
      // RUN_RESULT_META_KEY). A failed run is marked isError: clients show it as a failure and
      // some models weigh it; the text is the same either way.
      return {
        ...(runFailed(result) ? { isError: true } : {}),
        _meta: { [RUN_RESULT_META_KEY]: { ...result } },
        content: runPythonContent(
          result,
          images.map((image) => image.png),
        ),
      };
    },
  );

  // One change can rebuild the catalog twice (the config applied, then the server's own tools
  // event): notify only when what tools/list returns differs, so a change is one notification.
  let listed = engine.description();
  const unsubscribe = engine.onCatalogChange(() => {
    const now = engine.description();
    if (now === listed) return;
    listed = now;
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

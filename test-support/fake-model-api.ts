// A stand-in for the Anthropic Messages API, for driving a real Claude Code (`claude -p`) with
// ANTHROPIC_BASE_URL pointed here: no key, no network, no model. Asked with one of our tools on
// offer, it answers with a call of that tool with the given input; asked again with the tool's
// result, it records the result as Claude Code would send it to the model and ends the turn.
// Any other request (Claude Code's own side requests) gets a short text answer.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeModelApi {
  url: string;
  /** Each tool_result block Claude Code sent for our tool call, as the model would read it. */
  toolResults: unknown[];
  /** Paths and models of every request, for a failure's message. */
  requests: string[];
  close(): Promise<void>;
}

interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: { name?: string }[];
  messages?: { role: string; content: unknown }[];
}

type Block =
  { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

function sse(res: http.ServerResponse, model: string, blocks: Block[], stop: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const usage = { input_tokens: 10, output_tokens: 10 };
  send("message_start", {
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      send("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      });
    } else {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      send("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}

function json(res: http.ServerResponse, model: string, blocks: Block[], stop: string): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    }),
  );
}

/** Serves until closed; `tool` is the name Claude Code gives our tool, `input` its arguments. */
export async function startFakeModelApi(tool: string, input: unknown): Promise<FakeModelApi> {
  const toolResults: unknown[] = [];
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      let body: MessagesRequest = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as MessagesRequest;
      } catch {
        // not JSON: answered as any other request
      }
      const model = body.model ?? "claude-fake";
      requests.push(
        `${req.method} ${path} ${model} tools=${(body.tools ?? []).map((t) => t.name).join(",")}`,
      );
      if (req.method !== "POST" || path !== "/v1/messages") {
        res.writeHead(path.endsWith("/count_tokens") ? 200 : 404, {
          "content-type": "application/json",
        });
        res.end(
          JSON.stringify(
            path.endsWith("/count_tokens")
              ? { input_tokens: 10 }
              : { type: "error", error: { type: "not_found_error", message: "not here" } },
          ),
        );
        return;
      }
      const answer = body.stream === true ? sse : json;
      const offered = (body.tools ?? []).some((t) => t.name === tool);
      const last = body.messages?.at(-1);
      const results = Array.isArray(last?.content)
        ? (last.content as { type?: string; tool_use_id?: string }[]).filter(
            (b) => b.type === "tool_result" && b.tool_use_id === "toolu_fake_1",
          )
        : [];
      if (offered && results.length > 0) {
        toolResults.push(...results);
        answer(res, model, [{ type: "text", text: "Done." }], "end_turn");
      } else if (offered) {
        answer(
          res,
          model,
          [{ type: "tool_use", id: "toolu_fake_1", name: tool, input }],
          "tool_use",
        );
      } else {
        answer(res, model, [{ type: "text", text: "ok" }], "end_turn");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    toolResults,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

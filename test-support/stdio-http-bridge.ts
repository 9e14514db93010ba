// Streamable HTTP in front of a stdio MCP server, for clients that speak only HTTP (the MCP
// conformance suite) to reach `codemode serve`. Each HTTP session starts its own process
// and passes messages through unchanged both ways, so what the client sees of the protocol
// (initialize, ping, tools, prompts, resources, logging) is the stdio server's own answer.
// The HTTP layer is the SDK's: it says nothing about the server's own HTTP transport.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  StdioClientTransport,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface StdioHttpBridge {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp */
  url: string;
  /** Sessions (server processes) started so far. */
  started(): number;
  /** What the server processes wrote on stderr. */
  stderr(): string;
  close(): Promise<void>;
}

export async function startStdioHttpBridge(
  server: StdioServerParameters,
): Promise<StdioHttpBridge> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const children = new Set<StdioClientTransport>();
  let stderr = "";
  let started = 0;

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const front: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id): void => {
        sessions.set(id, front);
      },
    });
    const back = new StdioClientTransport({ ...server, stderr: "pipe" });
    back.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    children.add(back);
    started++;
    front.onmessage = (message) => void back.send(message);
    back.onmessage = (message) => void front.send(message);
    front.onclose = () => {
      if (front.sessionId) sessions.delete(front.sessionId);
      children.delete(back);
      void back.close();
    };
    back.onclose = () => void front.close();
    await back.start();
    await front.start();
    return front;
  };

  const httpServer = http.createServer((req, res) => {
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? sessions.get(id) : undefined;
    const handle = async (): Promise<void> => {
      if (existing) return existing.handleRequest(req, res);
      if (id !== undefined || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const front = await open();
      await front.handleRequest(req, res);
    };
    handle().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const port = (httpServer.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    started: () => started,
    stderr: () => stderr,
    async close() {
      await Promise.allSettled([...sessions.values()].map((front) => front.close()));
      await Promise.allSettled([...children].map((back) => back.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

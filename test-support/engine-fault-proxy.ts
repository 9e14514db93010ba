// A unix socket in front of a real engine that passes every request through, hijacked attach
// connections too, except those a rule picks: they get the engine error the rule gives. What
// an engine refusing a container's start looks like, on the machine's own Docker.
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { tempDir } from "./temp-dir.js";

export interface FaultRule {
  method: string;
  /** The path without its /vX.Y prefix must end with this (e.g. "/start"). */
  pathEnd: string;
  status: number;
  message: string;
}

export interface EngineFaultProxy {
  url: string;
  /** How many requests the rule answered. */
  faults(): number;
  close(): Promise<void>;
}

function withoutVersion(url: string): string {
  if (!url.startsWith("/v")) return url;
  const slash = url.indexOf("/", 1);
  return slash === -1 ? url : url.slice(slash);
}

export async function startEngineFaultProxy(
  engineSocket: string,
  rule: FaultRule,
): Promise<EngineFaultProxy> {
  const socketPath = path.join(tempDir("cm-fault-"), "engine.sock");
  let faults = 0;
  const sockets = new Set<net.Socket>();
  const picked = (req: http.IncomingMessage): boolean => {
    const url = withoutVersion((req.url ?? "").split("?")[0] ?? "");
    return req.method === rule.method && url.endsWith(rule.pathEnd);
  };
  const server = http.createServer((req, res) => {
    if (picked(req)) {
      faults++;
      req.resume();
      res.writeHead(rule.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ message: rule.message }));
      return;
    }
    const upstream = http.request(
      { socketPath: engineSocket, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  // Attach: Docker answers 101 and the connection becomes a raw stream both ways.
  server.on("upgrade", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const engine = net.connect(engineSocket, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      engine.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) engine.write(head);
      engine.pipe(client);
      client.pipe(engine);
    });
    for (const s of [engine, client]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        engine.destroy();
        client.destroy();
      });
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    url: `unix://${socketPath}`,
    faults: () => faults,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// A stand-in Docker engine that offers runc only, on a unix socket: it answers the calls that
// find an engine and list its runtimes, and 404s everything else (so no image is "there" and
// no container is made). What a user without gVisor has, as far as the runtime choice goes.
import { createServer, type Server } from "node:http";
import path from "node:path";
import { tempDir } from "./temp-dir.js";

export interface RuncOnlyEngine {
  /** DOCKER_HOST for a process that should find this engine. */
  dockerHost: string;
  close(): Promise<void>;
}

export async function startRuncOnlyEngine(): Promise<RuncOnlyEngine> {
  const socketPath = path.join(tempDir("codemode-runc-only-"), "docker.sock");
  const server: Server = createServer((request, response) => {
    const url = withoutVersion(request.url ?? "");
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (url === "/_ping") {
      response.writeHead(200, { "Content-Type": "text/plain" });
      response.end("OK");
    } else if (url === "/version") reply(200, { Version: "27.0.0-runc-only", ApiVersion: "1.46" });
    else if (url === "/info") reply(200, { Runtimes: { runc: { path: "runc" } } });
    else if (url.startsWith("/events")) {
      // Held open, as a real engine's event stream is while nothing happens.
      response.writeHead(200, { "Content-Type": "application/json" });
      response.flushHeaders();
    } else if (url.startsWith("/containers/json")) reply(200, []);
    else reply(404, { message: `not offered by this stand-in engine: ${url}` });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    dockerHost: `unix://${socketPath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** "/v1.46/info" → "/info": the API version prefix dockerode puts on every path. */
function withoutVersion(url: string): string {
  if (!url.startsWith("/v")) return url;
  const slash = url.indexOf("/", 1);
  return slash === -1 ? url : url.slice(slash);
}

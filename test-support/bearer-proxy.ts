// A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request, for
// clients that cannot send headers (the MCP conformance suite). Requests naming the proxy
// itself (Host 127.0.0.1:PORT or localhost:PORT, and the same as Origin) are rewritten to
// name the target, as a client talking to the target directly would; any other Host or
// Origin goes through untouched, so the target's DNS-rebinding check sees it as sent.
// Bodies and responses are streamed both ways (SSE streams stay open).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BearerProxy {
  /** The proxy's base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

export async function startBearerProxy(targetPort: number, token: string): Promise<BearerProxy> {
  let ownPort = 0;
  const server = http.createServer((req, res) => {
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    for (const hostname of ["127.0.0.1", "localhost"]) {
      if (req.headers.host === `${hostname}:${ownPort}`) headers.host = `${hostname}:${targetPort}`;
      if (req.headers.origin === `http://${hostname}:${ownPort}`) {
        headers.origin = `http://${hostname}:${targetPort}`;
      }
    }
    headers.authorization = `Bearer ${token}`;
    const upstream = http.request(
      { host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  ownPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${ownPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

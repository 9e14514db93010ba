// MCP over HTTP as the settings say: off by default, on 127.0.0.1 only when turned on; started,
// moved to another port or stopped when they change.
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { McpHttpServer } from "./mcp-http-server.js";
import type { Settings } from "../../servers/settings/settings.js";
import type { ClientSessions } from "../mcp/client-sessions.js";

export interface McpHttpServiceOptions {
  sessions: ClientSessions;
  token: string;
  dataDir: string;
  record: (entry: AuditEntryInput) => void;
  log?: ((line: string) => void) | undefined;
}

export class McpHttpService {
  private http: McpHttpServer | null = null;

  constructor(private readonly options: McpHttpServiceOptions) {}

  /** The server while it is on (tests reach its idle sweep through it). */
  get server(): McpHttpServer | null {
    return this.http;
  }

  get url(): string | null {
    return this.http?.url ?? null;
  }

  /** Starts, moves or stops the server as `settings` say; rejects if the port cannot be used. */
  async apply(settings: Settings): Promise<void> {
    const want = settings.httpEnabled ? settings.httpPort : null;
    const current = this.http;
    if (current && want !== null && current.url.includes(`:${want}/`)) return;
    this.http = null;
    await current?.close();
    if (want === null) return;
    const { sessions, token, log, record } = this.options;
    this.http = await McpHttpServer.start({
      sessions,
      port: want,
      token,
      log,
      record,
      onRefused: (reason) => record({ kind: "auth_refused", reason, transport: "http" }),
    });
    log?.(
      `MCP over HTTP at ${this.http.url} (bearer token: the token file in ${this.options.dataDir})`,
    );
  }

  async close(): Promise<void> {
    await this.http?.close();
  }
}

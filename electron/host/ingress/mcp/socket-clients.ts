// MCP clients on the local socket: each connection that proved the token becomes a client
// session; a refusal goes to the audit log, since someone on this machine knocked.
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import type { ListenOptions, LocalSocketListener } from "../local-access/socket-listener.js";
import type { ClientSessions } from "./client-sessions.js";

export interface SocketClientsOptions extends Pick<
  ListenOptions,
  "dataDir" | "env" | "instanceLock" | "uiLink"
> {
  record: (entry: AuditEntryInput) => void;
  log?: ((line: string) => void) | undefined;
}

export function listenForClients(
  listener: LocalSocketListener,
  sessions: Pick<ClientSessions, "attachSocket">,
  { record, log, ...where }: SocketClientsOptions,
): Promise<void> {
  return listener.listen({
    ...where,
    onConnection: (socket) => {
      void sessions.attachSocket(socket).catch((error: unknown) => {
        log?.(`connection failed: ${String(error)}`);
        socket.destroy();
      });
    },
    onRefused: (refusal) => {
      log?.(`refused a socket connection: ${refusal.message}`);
      record({ kind: "auth_refused", reason: refusal.message, transport: "socket" });
    },
    onError: (error) => log?.(`socket: ${error.message}`),
  });
}

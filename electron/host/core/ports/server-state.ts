// A wrapped server's state as its users see it: the servers layer keeps it, the engine tells
// the model about servers that are down from it.

export type ServerStatus = "starting" | "ready" | "failed" | "stopped";

export interface ServerState {
  status: ServerStatus;
  /** The most recent failure (with the last stderr lines), kept after recovery; null if none. */
  lastError: string | null;
  /** True while an automatic restart is scheduled or running after a crash. */
  restarting: boolean;
  /** Clock time of the next automatic restart attempt, while one is scheduled. */
  nextRestartAt: number | null;
  /** Automatic restart attempts since the server was created or restart() was called. */
  restartCount: number;
}

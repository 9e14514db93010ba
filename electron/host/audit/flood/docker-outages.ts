// Docker going away and coming back, on the record: one entry each way, and the runs refused
// meanwhile counted into one entry rather than logged try by try.
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { RunRefusals } from "./run-refusals.js";
import type { DockerOutageEvent } from "../../sandbox/sandbox-supervisor.js";

export class DockerOutages {
  private readonly refusals: RunRefusals;

  constructor(
    private readonly record: (entry: AuditEntryInput) => void,
    private readonly log: ((line: string) => void) | undefined,
    now: () => Date,
  ) {
    this.refusals = new RunRefusals(now);
  }

  /** A run refused at once because Docker is away. */
  refused(client: string): void {
    this.refusals.add(client);
  }

  /** Docker went away or came back: the log and the log lines say so. */
  changed(event: DockerOutageEvent): void {
    if (event.phase === "lost") {
      this.log?.(`docker: not reachable at ${event.endpoint} (${event.reason})`);
      this.record({ kind: "docker_lost", endpoint: event.endpoint, reason: event.reason });
      return;
    }
    this.flush();
    this.record({
      kind: "docker_back",
      endpoint: event.endpoint,
      downMs: event.downMs,
      sweptContainers: event.sweptContainers,
      warmContainers: event.warmContainers,
    });
    this.log?.(
      `docker: back at ${event.endpoint} after ${event.downMs} ms; removed ${event.sweptContainers} leftover containers, started ${event.warmContainers} warm`,
    );
  }

  /** Records the runs refused so far (when Docker is back, or the app stops). */
  flush(): void {
    const refused = this.refusals.take("docker_unreachable");
    if (refused) this.record(refused);
  }
}

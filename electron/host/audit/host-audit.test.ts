import { describe, expect, it } from "vitest";
import { allLines } from "../../../test-support/audit-fixtures.js";
import { AuditLog } from "./audit-log.js";
import { HostAudit } from "./host-audit.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";
import { AUTH_REFUSALS_PER_MINUTE } from "./flood/refusal-limiter.js";

let dir: string;
useAuditDir((made) => (dir = made));

describe("HostAudit", () => {
  it("counts refusals left out of the log even when a short secret is part of a transport's name", async () => {
    // Attack: knock on the HTTP port past AUTH_REFUSALS_PER_MINUTE (any web page can). The count
    // entry lists its transports; scrubbed of a secret that is part of "http" (a user marked
    // PROTOCOL=http secret), "http" became "[secret]", the entry failed its schema, and the
    // failed append marked the log failing: the count was lost and runs were refused.
    const log = await AuditLog.open({ dir, secrets: () => ["http"] });
    const audit = new HostAudit(log, { probeMs: 60_000 });
    try {
      for (let i = 0; i < AUTH_REFUSALS_PER_MINUTE + 1; i++) {
        audit.record({ kind: "auth_refused", reason: "bad token", transport: "http" });
      }
      await audit.durable();
      expect(audit.failure).toBeNull();
    } finally {
      audit.flushRefusals();
      audit.stop();
      await audit.durable();
      await log.close();
    }
    const counts = (await allLines(dir))
      .map((line) => JSON.parse(line) as { kind: string })
      .filter((entry) => entry.kind === "auth_refusals_not_logged");
    expect(counts).toMatchObject([{ count: 1, transports: ["http"] }]);
  });
});

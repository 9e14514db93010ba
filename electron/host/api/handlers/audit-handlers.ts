import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AuditLog } from "../../audit/audit-log.js";
import type { RunImageCache } from "../../audit/run-image-cache.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";

/**
 * What the audit handlers use: the log's readers. Export streams outside the API (ui-server,
 * electron/ipc), as a log can be far bigger than any one reply.
 */
export type AuditServices = Pick<AuditLog, "query" | "getRun" | "verify">;

/** Recent runs' images and printed output, held in memory (run-image-cache.ts). */
export type RunImageLookup = Pick<RunImageCache, "get"> & Partial<Pick<RunImageCache, "output">>;

export function auditHandlers(
  audit: AuditServices,
  images?: RunImageLookup,
): Pick<ApiHandlers, "audit.query" | "audit.run" | "audit.verify"> {
  return {
    "audit.query": ({ filter, limit, before }) => audit.query(filter, { limit, before }),
    "audit.run": async ({ runId }) => {
      const detail = await audit.getRun(runId);
      if (!detail) throw new ApiFailure("not_found", `no run ${runId} in the audit log`);
      const held = images?.get(runId) ?? [];
      const output = images?.output?.(runId) ?? null;
      return {
        ...detail,
        ...(held.length > 0 ? { images: held } : {}),
        ...(output === null ? {} : { output }),
      };
    },
    "audit.verify": () => audit.verify(),
  };
}

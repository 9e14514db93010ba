import { Writable } from "node:stream";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AuditLog } from "../../audit/audit-log.js";
import type { RunImageCache } from "../../app/run-image-cache.js";
import { ApiFailure } from "../api-failure.js";

/** What the audit handlers use: the log's readers. */
export type AuditServices = Pick<AuditLog, "query" | "getRun" | "verify" | "export">;

/** Recent runs' images, held in memory (run-image-cache.ts). */
export type RunImageLookup = Pick<RunImageCache, "get">;

export function auditHandlers(
  audit: AuditServices,
  images?: RunImageLookup,
): Pick<ApiHandlers, "audit.query" | "audit.run" | "audit.verify" | "audit.export"> {
  return {
    "audit.query": ({ filter, limit, before }) => audit.query(filter, { limit, before }),
    "audit.run": async ({ runId }) => {
      const detail = await audit.getRun(runId);
      if (!detail) throw new ApiFailure("not_found", `no run ${runId} in the audit log`);
      const held = images?.get(runId) ?? [];
      return held.length > 0 ? { ...detail, images: held } : detail;
    },
    "audit.verify": () => audit.verify(),
    "audit.export": async ({ format, filter }) => {
      const chunks: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          chunks.push(chunk.toString());
          done();
        },
      });
      await audit.export(format, sink, filter);
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
      return { fileName: `codemode-audit-${stamp}.${format}`, text: chunks.join("") };
    },
  };
}

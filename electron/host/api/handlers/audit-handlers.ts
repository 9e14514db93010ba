import { Writable } from "node:stream";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { ApiFailure } from "../api-failure.js";

export function auditHandlers(
  host: CodeModeHost,
): Pick<ApiHandlers, "audit.query" | "audit.run" | "audit.verify" | "audit.export"> {
  return {
    "audit.query": ({ filter, limit, before }) => host.audit.query(filter, { limit, before }),
    "audit.run": async ({ runId }) => {
      const detail = await host.audit.getRun(runId);
      if (!detail) throw new ApiFailure("not_found", `no run ${runId} in the audit log`);
      return detail;
    },
    "audit.verify": () => host.audit.verify(),
    "audit.export": async ({ format, filter }) => {
      const chunks: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          chunks.push(chunk.toString());
          done();
        },
      });
      await host.audit.export(format, sink, filter);
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
      return { fileName: `codemode-audit-${stamp}.${format}`, text: chunks.join("") };
    },
  };
}

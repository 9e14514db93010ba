// Two parts of a run's detail: what it printed (while the host holds it), and the private-data
// rule where it applied to the run.
import type { CallEntry, RunFinishedEntry } from "../../../../shared/audit-entry.js";
import type { AuditRunOutput } from "../../../../shared/audit-query-types.js";
import { visibleText } from "../../../../shared/hidden-chars.js";
import { AUDIT_LIMITS, IMAGE_LIMITS } from "../../../../shared/limits.js";
import { targetOf } from "../../lib/audit.js";
import { formatBytes } from "../../lib/format.js";
import { hrefFor } from "../../lib/router.js";
import { useAppState } from "../../state/app-state.js";

/**
 * What the run printed: the start of each stream while the host holds it (recent runs, in
 * memory only: printed output is data the run read, which the log leaves out), else how much.
 */
export function RunOutput(props: { entry: RunFinishedEntry; output: AuditRunOutput | undefined }) {
  const { entry, output } = props;
  if (entry.stdoutBytes === 0 && entry.stderrBytes === 0) return null;
  const cut = (shown: string, bytes: number) =>
    new TextEncoder().encode(shown).length < bytes
      ? ` (the first ${formatBytes(AUDIT_LIMITS.runOutputShownBytes)} of ${formatBytes(bytes)})`
      : "";
  return (
    <>
      <h3 className="detail-heading">What it printed</h3>
      {output === undefined ? (
        <p className="muted small">
          {formatBytes(entry.stdoutBytes)} printed. The app keeps what runs print only while it
          runs, for the last {IMAGE_LIMITS.cachedRuns} runs, and never in the log.
        </p>
      ) : (
        <>
          {output.stdout !== "" ? (
            <>
              <p className="muted small">Output{cut(output.stdout, output.stdoutBytes)}</p>
              <pre className="code-block" tabIndex={0} aria-label="What the run printed">
                {visibleText(output.stdout, { multiline: true })}
              </pre>
            </>
          ) : null}
          {output.stderr !== "" ? (
            <>
              <p className="muted small">
                Errors and warnings{cut(output.stderr, output.stderrBytes)}
              </p>
              <pre
                className="code-block code-block-bad"
                tabIndex={0}
                aria-label="What the run printed as errors"
              >
                {visibleText(output.stderr, { multiline: true })}
              </pre>
            </>
          ) : null}
        </>
      )}
    </>
  );
}

/**
 * The private-data rule where it bites: this run read a private tool (so its client can only
 * call private tools from then on), or its client was in private-data mode when it started.
 */
export function PrivateRule(props: {
  client: string;
  calls: CallEntry[];
  startedAt: string | null;
}) {
  const { taint } = useAppState();
  const record = (taint.data?.items ?? []).find((t) => t.client === props.client);
  const privateCall = props.calls.find((c) => c.private && c.decision !== "refused");
  const before =
    record !== undefined && props.startedAt !== null && record.at <= props.startedAt
      ? record
      : null;
  if (!privateCall && !before) return null;
  return (
    <div
      className="callout callout-private callout-compact"
      role="note"
      aria-label="Private-data mode"
    >
      <div className="callout-text">
        <p>
          {privateCall ? (
            <>
              This run read from a private tool (<code>{targetOf(privateCall)}</code>): from then
              on, <strong>{props.client}</strong> can only call private tools, so what it read
              cannot reach another server.
            </>
          ) : (
            <>
              <strong>{props.client}</strong> was in private-data mode during this run (since it
              called <code>{before!.tool}</code> on {before!.server}): it could only call private
              tools.
            </>
          )}{" "}
          <a href={hrefFor("clients")}>See it on the Clients page</a>
        </p>
      </div>
    </div>
  );
}

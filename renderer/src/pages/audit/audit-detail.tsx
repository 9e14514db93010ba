// The detail panel: a whole run (code, calls in order, result) or one entry's fields.
import { useEffect, useRef } from "react";
import type { AuditEntry, CallEntry, RunFinishedEntry } from "../../../../shared/audit-entry.js";
import type { AuditRunDetail } from "../../../../shared/audit-query-types.js";
import { receiptOf } from "../../../../shared/run-receipt.js";
import { visibleText } from "../../../../shared/hidden-chars.js";
import { useRequest } from "../../api/hooks.js";
import { Badge, type Tone } from "../../components/badge.js";
import { ErrorState, Loading } from "../../components/states.js";
import { kindLabel, runOutcome, summaryOf, targetOf } from "../../lib/audit.js";
import { formatBytes, formatDateTime, formatDuration } from "../../lib/format.js";
import { receiptText } from "../../lib/receipt-text.js";
import { runTitle } from "../../lib/run-title.js";
import { RunFiles } from "./run-files.js";
import { RunImages } from "./run-images.js";
import { PrivateRule, RunOutput } from "./run-notes.js";

export const DECISION_TONES: Record<CallEntry["decision"], Tone> = {
  allowed: "ok",
  refused: "bad",
  failed: "warn",
};

const DECISION_LABELS: Record<CallEntry["decision"], string> = {
  allowed: "Allowed",
  refused: "Refused",
  failed: "Failed",
};

export function DecisionBadge(props: { decision: CallEntry["decision"] }) {
  return <Badge tone={DECISION_TONES[props.decision]}>{DECISION_LABELS[props.decision]}</Badge>;
}

export function AuditDetail(props: {
  entry: AuditEntry | null;
  runId: string | null;
  onClose: () => void;
  onOnlyThisRun: (runId: string) => void;
  focusKey: number;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (props.focusKey > 0) headingRef.current?.focus();
  }, [props.focusKey]);

  const title = props.runId ? "Run" : props.entry ? kindLabel(props.entry.kind) : "Entry";
  return (
    <aside
      className="audit-detail"
      aria-labelledby="audit-detail-title"
      onKeyDown={(event) => {
        // In a narrow window the panel lies over the list: Escape closes it from inside too.
        if (event.key === "Escape") {
          event.preventDefault();
          props.onClose();
        }
      }}
    >
      <div className="audit-detail-header">
        <h2 id="audit-detail-title" className="card-title" tabIndex={-1} ref={headingRef}>
          {title}
          {props.runId ? <code className="detail-id">{props.runId}</code> : null}
        </h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close details"
          title="Close details (Esc)"
          onClick={props.onClose}
        >
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      <div className="audit-detail-body">
        {props.runId ? (
          <RunDetail
            runId={props.runId}
            selectedSeq={props.entry?.seq ?? null}
            onOnlyThisRun={props.onOnlyThisRun}
          />
        ) : props.entry ? (
          <EntryFields entry={props.entry} />
        ) : (
          <p className="muted">
            This entry is not loaded. Scroll or change the filters to find it.
          </p>
        )}
      </div>
    </aside>
  );
}

function RunDetail(props: {
  runId: string;
  selectedSeq: number | null;
  onOnlyThisRun: (runId: string) => void;
}) {
  const run = useRequest("audit.run", { runId: props.runId });
  if (run.data === undefined) {
    return run.error ? (
      <ErrorState error={run.error} onRetry={run.reload} title="Could not load this run" />
    ) : (
      <Loading label="Loading the run…" />
    );
  }
  // A host may answer null for a run that is not in the log (any more).
  const detail = run.data as AuditRunDetail | null;
  if (detail === null) {
    return (
      <p className="muted">This run is not in the log (it may be older than the log keeps).</p>
    );
  }
  const { started, finished, calls } = detail;
  // A host from before run_abandoned answers without the field.
  const abandoned = detail.abandoned ?? null;
  const outcome = finished ? runOutcome(finished) : null;
  const client = started?.client ?? finished?.client ?? calls[0]?.client ?? "—";
  const title = started ? runTitle(started.code) : "";

  return (
    <div className="run-detail">
      {title !== "" ? <p className="run-title">{title}</p> : null}
      <PrivateRule client={client} calls={calls} startedAt={started?.ts ?? null} />
      <dl className="facts facts-compact">
        <div>
          <dt>Client</dt>
          <dd>{client}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{started ? formatDateTime(started.ts) : "—"}</dd>
        </div>
        <div>
          <dt>Result</dt>
          <dd>
            {outcome ? (
              <Badge tone={outcome.tone}>{outcome.text}</Badge>
            ) : abandoned ? (
              <Badge tone="warn">Abandoned: {abandoned.reason}</Badge>
            ) : (
              <Badge tone="info">Still running</Badge>
            )}
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{finished ? formatDuration(finished.durationMs) : "—"}</dd>
        </div>
      </dl>
      <button
        type="button"
        className="link-button"
        onClick={() => props.onOnlyThisRun(props.runId)}
      >
        Show only this run in the list
      </button>

      <h3 className="detail-heading">Code</h3>
      {started ? (
        <>
          <pre className="code-block code-block-tall" tabIndex={0} aria-label="Code of the run">
            {started.code}
          </pre>
          {/* In bytes: code with accents or emoji, logged whole, is longer in bytes than in characters. */}
          {new TextEncoder().encode(started.code).length < started.codeBytes ? (
            <p className="muted small">
              Shortened in the log: the code was {formatBytes(started.codeBytes)}; its start and its
              end are shown, the middle is left out. Its sha256 is{" "}
              <code className="wrap-anywhere">{started.codeHash}</code>.
            </p>
          ) : null}
        </>
      ) : (
        <p className="muted">The start of this run is not in the log any more.</p>
      )}

      <h3 className="detail-heading">
        Calls <span className="muted">({calls.length})</span>
      </h3>
      {calls.length === 0 ? (
        <p className="muted">The code called no tools.</p>
      ) : (
        <ol className="call-list">
          {calls.map((call) => (
            <li
              key={call.seq}
              className={`call-item${call.seq === props.selectedSeq ? " is-selected" : ""}`}
              aria-current={call.seq === props.selectedSeq ? "true" : undefined}
            >
              <div className="call-head">
                <span className="call-target">{targetOf(call)}</span>
                <DecisionBadge decision={call.decision} />
                {call.private ? <Badge tone="private">Private</Badge> : null}
                <span className="muted small call-time">{formatDuration(call.durationMs)}</span>
              </div>
              {call.reason ? <p className="call-reason">{call.reason}</p> : null}
              {call.detail ? <p className="muted small">Host detail: {call.detail}</p> : null}
              {call.args ? (
                <details className="disclosure disclosure-small" open={call.private}>
                  <summary>Arguments ({formatBytes(call.argBytes)})</summary>
                  <pre className="code-block">{prettyJson(call.args)}</pre>
                </details>
              ) : call.argBytes > 0 ? (
                <p className="muted small">
                  Its arguments are not in the log: the tool is set to hide them (Servers page).
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      )}

      <h3 className="detail-heading">Result</h3>
      {finished ? (
        <>
          <dl className="facts facts-compact">
            <div>
              <dt>Exit code</dt>
              <dd>{finished.exitCode ?? "—"}</dd>
            </div>
            <div>
              <dt>Calls</dt>
              <dd>{finished.calls}</dd>
            </div>
            <div>
              <dt>Output</dt>
              <dd>
                {formatBytes(finished.stdoutBytes)} printed
                {finished.stderrBytes > 0 ? `, ${formatBytes(finished.stderrBytes)} of errors` : ""}
                {finished.truncated ? " (cut)" : ""}
              </dd>
            </div>
            <RunReceiptFact entry={finished} />
            {finished.stopped ? (
              <div>
                <dt>Stopped</dt>
                <dd>
                  {finished.stopped === "check"
                    ? "by the check before the run: nothing ran, no tool was called"
                    : finished.stopped.replace("_", " ")}
                </dd>
              </div>
            ) : null}
          </dl>
          {finished.error ? (
            <pre className="code-block code-block-bad" tabIndex={0} aria-label="Error">
              {finished.error}
            </pre>
          ) : null}
          <RunImages logged={finished.images} held={detail.images} />
          <RunFiles files={finished.files} />
          <RunOutput entry={finished} output={detail.output} />
        </>
      ) : (
        <p className="muted">The run has not finished (or its end is not in the log).</p>
      )}
    </div>
  );
}

/** What the run's result cost the model against its calls' results one at a time. */
function RunReceiptFact(props: { entry: RunFinishedEntry }) {
  const receipt = receiptOf(props.entry);
  if (receipt === null) return null;
  return (
    <div className="fact-full">
      <dt>Receipt</dt>
      <dd data-testid="run-receipt">{receiptText(receipt)}</dd>
    </div>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const HIDDEN_FIELDS = new Set(["kind", "prev"]);

function EntryFields(props: { entry: AuditEntry }) {
  const { entry } = props;
  const rows = Object.entries(entry).filter(([key]) => !HIDDEN_FIELDS.has(key));
  return (
    <div>
      <p className="detail-summary">{summaryOf(entry)}</p>
      <dl className="facts facts-compact facts-kv">
        {rows.map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              {key === "ts" && typeof value === "string" ? (
                formatDateTime(value)
              ) : typeof value === "object" && value !== null ? (
                <pre className="code-block">
                  {visibleText(JSON.stringify(value, null, 2), { multiline: true })}
                </pre>
              ) : (
                <span className="wrap-anywhere">
                  {value === null ? "—" : visibleText(String(value), { multiline: true })}
                </span>
              )}
            </dd>
          </div>
        ))}
      </dl>
      <details className="disclosure disclosure-small">
        <summary>As logged (JSON)</summary>
        <pre className="code-block">
          {visibleText(JSON.stringify(entry, null, 2), { multiline: true })}
        </pre>
      </details>
    </div>
  );
}

// "Ask first": the calls waiting for the user's answer, shown above every page (in the app's
// window and in the browser UI alike). Each shows who asks for what, the arguments (secrets
// masked by the host) and the run's code, folded.
import { useEffect, useState } from "react";
import type { ApprovalView } from "../../../shared/api/api-views.js";
import { useLiveList, useMutation } from "../api/hooks.js";
import { formatBytes } from "../lib/format.js";

export function ApprovalPanel() {
  const pending = useLiveList("approvals.list", "approvals.changed");
  const waiting = pending.data ?? [];
  if (waiting.length === 0) return null;
  return (
    <section className="approval-panel" aria-label="Calls waiting for your answer">
      <h2 className="approval-panel-title">
        {waiting.length === 1
          ? "A call waits for your answer"
          : `${waiting.length} calls wait for your answer`}
      </h2>
      <ul className="approval-list">
        {waiting.map((view) => (
          <ApprovalItem key={view.id} view={view} />
        ))}
      </ul>
    </section>
  );
}

function useSecondsLeft(expiresAt: string): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 1000));
}

function ApprovalItem(props: { view: ApprovalView }) {
  const { view } = props;
  const answer = useMutation("approvals.answer");
  const left = useSecondsLeft(view.expiresAt);
  const send = (choice: "allow_once" | "allow_run" | "deny") =>
    void answer.run({ id: view.id, answer: choice });
  return (
    <li
      className="approval"
      aria-label={`${view.client} wants to call ${view.tool} on ${view.server}`}
    >
      <p className="approval-question">
        <strong>{view.client}</strong> wants to call <code>{view.tool}</code> on{" "}
        <strong>{view.server}</strong>
        {view.private ? " (a private tool)" : ""}.
      </p>
      <p className="muted small">
        Denied in {left} s unless you answer
        {view.untilRunDeadline ? ": the run it belongs to reaches its deadline then" : ""}
        {view.elicited ? "; the client was asked too, the first answer counts" : ""}.
      </p>
      <div className="approval-args">
        <span className="small muted">Arguments</span>
        <pre className="code-block" tabIndex={0}>
          {view.args}
        </pre>
      </div>
      <details className="approval-code">
        <summary>Code of the run ({formatBytes(view.codeBytes)})</summary>
        {view.code.includes(" bytes left out …]") ? (
          <p className="muted small">
            Shortened: its start and its end are shown, the middle is left out.
          </p>
        ) : null}
        <pre className="code-block" tabIndex={0}>
          {view.code}
        </pre>
      </details>
      <div className="approval-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={answer.busy}
          onClick={() => send("allow_once")}
        >
          Allow once
        </button>
        <button
          type="button"
          className="button"
          disabled={answer.busy}
          onClick={() => send("allow_run")}
        >
          Allow for this run
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={answer.busy}
          onClick={() => send("deny")}
        >
          Deny
        </button>
      </div>
      {answer.error ? <div className="field-error">{answer.error.message}</div> : null}
    </li>
  );
}

import { useState } from "react";
import type { ServerPage, ServerView } from "../../../../shared/api/api-views.js";
import { useMutation } from "../../api/hooks.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { ErrorState } from "../../components/states.js";
import { hrefFor } from "../../lib/router.js";
import { startErrorText } from "../../lib/start-error.js";
import { HeldReview } from "./held-review.js";
import { ServerStatusBadge } from "./server-status-badge.js";
import { ToolList } from "./tool-list.js";
import { commandLine } from "./server-entry.js";

export function ServerDetail(props: {
  server: ServerView;
  onEdit: () => void;
  onChanged: (servers: ServerPage) => void;
  onRemoved: (servers: ServerPage) => void;
}) {
  const { server } = props;
  const restart = useMutation("servers.restart");
  const [confirmRemove, setConfirmRemove] = useState(false);

  return (
    <div className="page">
      <a className="back-link" href={hrefFor("servers")}>
        <span aria-hidden="true">←</span> All servers
      </a>
      <section className="card" aria-labelledby="server-heading">
        <div className="card-header card-header-wrap">
          <div className="title-with-badge">
            <h2 id="server-heading" className="card-title card-title-large">
              {server.name}
            </h2>
            <ServerStatusBadge server={server} />
          </div>
          <div className="button-row">
            <button type="button" className="button" onClick={props.onEdit}>
              Edit
            </button>
            <button
              type="button"
              className="button"
              disabled={restart.busy || server.restarting}
              onClick={() => {
                void restart.run({ name: server.name }).then((r) => {
                  if (r.ok) props.onChanged(r.value);
                });
              }}
            >
              {restart.busy || server.restarting ? "Restarting…" : "Restart"}
            </button>
            <button
              type="button"
              className="button button-danger-quiet"
              onClick={() => setConfirmRemove(true)}
            >
              Remove
            </button>
          </div>
        </div>
        {restart.error ? <ErrorState error={restart.error} compact /> : null}
        <dl className="facts facts-wide">
          <div>
            <dt>Command</dt>
            <dd>
              <code className="wrap-anywhere">{commandLine(server.command, server.args)}</code>
            </dd>
          </div>
          {server.env.length > 0 ? (
            <div>
              <dt>Environment</dt>
              <dd>
                <ul className="env-list">
                  {server.env.map((e) => (
                    <li key={e.name}>
                      <code>
                        {e.name}={e.value}
                      </code>
                      {e.secret ? <span className="muted small"> (secret)</span> : null}
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
          ) : null}
        </dl>
        {server.status === "failed" ? <FailureDetails server={server} /> : null}
      </section>

      <HeldReview server={server} />

      <section className="card" aria-labelledby="tools-heading">
        <div className="card-header">
          <h3 id="tools-heading" className="card-title">
            Tools
          </h3>
        </div>
        <p className="card-text muted">
          <strong>Allowed</strong> tools can be called by the code. Calling a{" "}
          <strong>Private</strong> tool turns on private-data mode for that client: from then on it
          can only call private tools, so the data cannot leak to other servers.
        </p>
        <ToolList server={server} />
      </section>

      {confirmRemove ? (
        <RemoveDialog
          server={server}
          onClose={() => setConfirmRemove(false)}
          onRemoved={props.onRemoved}
        />
      ) : null}
    </div>
  );
}

export function FailureDetails(props: { server: ServerView }) {
  const { server } = props;
  return (
    <div className="callout callout-bad">
      <div className="callout-text">
        <strong>This server did not start.</strong>
        {server.lastError ? (
          <p>{startErrorText(server.lastError, server.stderrTail.length > 0)}</p>
        ) : null}
        {server.stderrTail.length > 0 ? (
          <>
            <p className="muted small">Last lines it printed:</p>
            <pre className="code-block code-block-bad" tabIndex={0} aria-label="Server output">
              {server.stderrTail.join("\n")}
            </pre>
          </>
        ) : null}
      </div>
    </div>
  );
}

function RemoveDialog(props: {
  server: ServerView;
  onClose: () => void;
  onRemoved: (servers: ServerPage) => void;
}) {
  const remove = useMutation("servers.remove");
  return (
    <Dialog
      alert
      title={`Remove ${props.server.name}?`}
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          tone="danger"
          confirmLabel="Remove server"
          busyLabel="Removing…"
          busy={remove.busy}
          onConfirm={() => {
            void remove.run({ name: props.server.name }).then((r) => {
              if (r.ok) props.onRemoved(r.value);
            });
          }}
        />
      }
    >
      <p>
        Code Mode stops <strong className="wrap-anywhere">{props.server.name}</strong> and forgets
        its settings, including its environment variables and tool choices. The code will no longer
        be able to call its tools.
      </p>
      <p className="muted">Its past calls stay in the audit log.</p>
      {remove.error ? <ErrorState error={remove.error} compact /> : null}
    </Dialog>
  );
}

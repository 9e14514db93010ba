// The banners under the header: connection lost, paused, private-data mode, startup problems.
import { useState } from "react";
import type { ListPage, TaintView } from "../../../shared/api/api-views.js";
import { useConnection, useMutation } from "../api/hooks.js";
import { formatDateTime } from "../lib/format.js";
import { useAppState } from "../state/app-state.js";
import { Dialog } from "./dialog.js";
import { DialogFooter } from "./dialog-footer.js";
import { ShieldIcon } from "./icons.js";
import { ErrorState } from "./states.js";

export function ConnectionBanner() {
  const connection = useConnection();
  if (connection.state === "open" || connection.state === "connecting") return null;
  const retrying = connection.state === "reconnecting";
  return (
    <div className="banner banner-bad" role="alert">
      <div className="banner-text">
        <strong>Not connected to Code Mode.</strong>{" "}
        {connection.problem ?? "The connection was lost."}
        {retrying ? " Trying again…" : ""}
      </div>
      <button type="button" className="button button-small" onClick={connection.reconnectNow}>
        Try now
      </button>
    </div>
  );
}

export function PausedBanner() {
  const { info } = useAppState();
  const resume = useMutation("app.setPaused");
  if (!info.data?.paused) return null;
  return (
    <div className="banner banner-warn" role="status" aria-label="Paused">
      <div className="banner-text">
        <strong>Code Mode is paused.</strong> Clients cannot start new runs until you resume.
        {resume.error ? <span className="banner-error"> {resume.error.message}</span> : null}
      </div>
      <button
        type="button"
        className="button button-small"
        disabled={resume.busy}
        onClick={() => {
          void resume.run({ paused: false }).then((r) => {
            if (r.ok) info.setData(r.value);
          });
        }}
      >
        Resume runs
      </button>
    </div>
  );
}

export function StartupProblemsBanner() {
  const { info } = useAppState();
  const problems = info.data?.startupProblems ?? [];
  const catalogError = info.data?.catalogError ?? null;
  return (
    <>
      {problems.length > 0 ? (
        <div className="banner banner-warn" role="alert">
          <div className="banner-text">
            <strong>Some settings could not be loaded when Code Mode started.</strong> They were
            kept aside, not overwritten.
            <ul className="banner-list">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
      {catalogError !== null ? (
        <div className="banner banner-warn" role="alert">
          <div className="banner-text">
            <strong>The tools of a server changed, but Code Mode cannot use them.</strong> The
            previous tools stay in use until this is fixed.
            <ul className="banner-list">
              <li>{catalogError}</li>
            </ul>
          </div>
        </div>
      ) : null}
    </>
  );
}

export function TaintBanners() {
  const { taint } = useAppState();
  const [confirming, setConfirming] = useState<TaintView | null>(null);
  const list = taint.data?.items ?? [];
  // The first page only: the rest appear as these are reset (a banner each would not help).
  const others = (taint.data?.total ?? 0) - list.length;
  if (list.length === 0 && !confirming) return null;
  return (
    <>
      {list.map((record) => (
        <section
          key={record.client}
          className="banner banner-private"
          aria-label={`Private-data mode for ${record.client}`}
        >
          <span className="banner-icon">
            <ShieldIcon />
          </span>
          <div className="banner-text">
            <strong>Private-data mode is on for {record.client}.</strong> Since{" "}
            {formatDateTime(record.at)}, when it called <code>{record.tool}</code> on{" "}
            <strong>{record.server}</strong> (a tool marked private), {record.client} can only call
            private tools.
          </div>
          <button
            type="button"
            className="button button-small"
            onClick={() => setConfirming(record)}
          >
            Reset
          </button>
        </section>
      ))}
      {others > 0 ? (
        <p className="banner banner-private small" role="status">
          Private-data mode is on for {others.toLocaleString()} more{" "}
          {others === 1 ? "client" : "clients"}.
        </p>
      ) : null}
      {confirming ? (
        <ResetTaintDialog
          record={confirming}
          onClose={() => setConfirming(null)}
          onDone={(next) => {
            taint.setData(next);
            setConfirming(null);
          }}
        />
      ) : null}
    </>
  );
}

function ResetTaintDialog(props: {
  record: TaintView;
  onClose: () => void;
  onDone: (next: ListPage<TaintView>) => void;
}) {
  const reset = useMutation("taint.reset");
  const { record } = props;
  return (
    <Dialog
      alert
      title={`Reset private-data mode for ${record.client}?`}
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          tone="danger"
          confirmLabel="Reset private-data mode"
          busyLabel="Resetting…"
          busy={reset.busy}
          onConfirm={() => {
            void reset.run({ client: record.client }).then((r) => {
              if (r.ok) props.onDone(r.value);
            });
          }}
        />
      }
    >
      <div className="callout callout-warn">
        <div className="callout-text">
          <strong>{record.client}&rsquo;s conversation may still hold the private data.</strong>
          <p>
            It read data from <code>{record.tool}</code> on {record.server}. After a reset, the
            model in that conversation can call every allowed tool again, and could pass that data
            on to them.
          </p>
        </div>
      </div>
      <p>
        To be safe, start a new conversation in {record.client} first, then reset. Private-data mode
        turns on again the next time a private tool is called.
      </p>
      {reset.error ? <ErrorState error={reset.error} compact /> : null}
    </Dialog>
  );
}

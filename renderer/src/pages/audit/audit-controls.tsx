// The audit page's toolbar: the live tail's pause switch, chain verification and export.
import { memo, useEffect, useState } from "react";
import type { AuditFilter } from "../../../../shared/api/api-contract.js";
import type { AuditVerifyProgress } from "../../../../shared/audit-query-types.js";
import { useBrowserConnection, useEvent, useRequest } from "../../api/hooks.js";
import { Badge } from "../../components/badge.js";
import { SelectField } from "../../components/field.js";
import { Loading } from "../../components/states.js";
import { formatTime, plural } from "../../lib/format.js";

export const LiveControl = memo(function LiveControl(props: {
  paused: boolean;
  held: number;
  onPause: () => void;
  onResume: () => void;
}) {
  return (
    <div className="live-control">
      <span className={`live-dot${props.paused ? " is-paused" : ""}`} aria-hidden="true" />
      <span className="live-text" role="status">
        {props.paused
          ? props.held > 0
            ? `Paused · ${props.held.toLocaleString()} new`
            : "Paused"
          : "Live"}
      </span>
      <button
        type="button"
        className="button button-small"
        onClick={props.paused ? props.onResume : props.onPause}
      >
        {props.paused ? "Resume live" : "Pause live"}
      </button>
    </div>
  );
});

/**
 * Chain verification: when it was checked and of how many entries, and how many came since
 * (the list keeps growing live; "verified: 70 entries" beside 76 rows read as a contradiction).
 */
export const VerifyControl = memo(function VerifyControl() {
  const verify = useRequest("audit.verify", {});
  const data = verify.data;
  // The host reports how far it has read while the request is out (a big log takes seconds).
  const [progress, setProgress] = useState<AuditVerifyProgress | null>(null);
  useEvent("audit.verify", setProgress);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  useEffect(() => {
    if (data !== undefined) setCheckedAt(new Date());
  }, [data]);
  // Entries written after the newest one checked: not checked yet.
  const checkedUpTo = data?.ok ? (data.lastSeq ?? 0) : null;
  const [newest, setNewest] = useState(0);
  useEvent("audit.entry", (entry) => setNewest((seq) => Math.max(seq, entry.seq)));
  const since = checkedUpTo === null ? 0 : Math.max(0, newest - checkedUpTo);
  let status;
  if (verify.loading && progress !== null && !progress.done) {
    status = <VerifyProgressBar progress={progress} />;
  } else if (verify.loading) status = <Loading inline label="Verifying the chain…" />;
  else if (verify.error) status = <Badge tone="bad">{verify.error.message}</Badge>;
  else if (data?.ok) {
    const at = checkedAt ? ` at ${formatTime(checkedAt)}` : "";
    status = (
      <>
        <Badge tone="ok" title={data.note ?? undefined}>
          Chain verified{at}: {plural(data.entries, "entry", "entries")}
        </Badge>
        {since > 0 ? (
          <span className="muted small" data-testid="verify-since">
            {plural(since, "newer entry", "newer entries")} not checked yet
          </span>
        ) : null}
      </>
    );
  } else if (data && !data.ok) {
    const where =
      data.firstBad.seq !== null
        ? `seq ${data.firstBad.seq}`
        : `line ${data.firstBad.line} of ${data.firstBad.file}`;
    status = (
      <Badge tone="bad" title={`${data.firstBad.file}, line ${data.firstBad.line}`}>
        Chain broken at {where}: {data.firstBad.problem}
      </Badge>
    );
  }
  return (
    <div className="verify" role="status" aria-label="Chain verification">
      {status}
      {data?.note ? <span className="muted small verify-note">{data.note}</span> : null}
      <button
        type="button"
        className="button button-small"
        onClick={verify.reload}
        disabled={verify.loading}
      >
        {data === undefined ? "Verify" : "Verify again"}
      </button>
    </div>
  );
});

function VerifyProgressBar(props: { progress: AuditVerifyProgress }) {
  const { doneBytes, totalBytes, entries } = props.progress;
  const percent = totalBytes > 0 ? Math.min(100, Math.round((doneBytes / totalBytes) * 100)) : 0;
  return (
    <div className="progress-block verify-progress">
      <div className="progress-label">
        Verifying the chain… {entries.toLocaleString()} entries checked · {percent}%
      </div>
      <div
        className="progress"
        role="progressbar"
        aria-label="Verify progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%`}
      >
        <div className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

export const ExportControl = memo(function ExportControl(props: { filter: AuditFilter }) {
  const [format, setFormat] = useState<"jsonl" | "csv">("jsonl");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const connection = useBrowserConnection();
  // A log can be far bigger than any API message: the export is streamed to a file, never
  // handed over as a value. Desktop: a save dialog in the main process; browser: a download.
  const run = async () => {
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const params = { format, filter: props.filter };
      const desktop = window.codemodeDesktop;
      if (desktop) {
        const result = await desktop.exportAudit(params);
        if (!result.ok) setError(result.message);
        else if (result.saved) {
          setSaved(
            `Saved ${result.saved.entries.toLocaleString()} entries to ${result.saved.path}`,
          );
        }
        return;
      }
      if (!connection) {
        setError("Export is not available here.");
        return;
      }
      const link = await connection.exportLink(params);
      if (!link.ok) {
        setError(link.error.message);
        return;
      }
      const a = document.createElement("a");
      a.href = link.value.url;
      // The server names the file (Content-Disposition); this only marks it a download.
      a.download = "";
      document.body.appendChild(a);
      a.click();
      a.remove();
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export">
      <SelectField
        label="Format"
        value={format}
        onChange={(v) => setFormat(v === "csv" ? "csv" : "jsonl")}
        fieldClassName="field-inline"
        options={[
          { value: "jsonl", label: "JSONL" },
          { value: "csv", label: "CSV" },
        ]}
      />
      <button
        type="button"
        className="button button-small"
        onClick={() => void run()}
        disabled={busy}
      >
        {busy ? "Exporting…" : "Export"}
      </button>
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
      {saved ? (
        <span className="muted small" role="status">
          {saved}
        </span>
      ) : null}
    </div>
  );
});

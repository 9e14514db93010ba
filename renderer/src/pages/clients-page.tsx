// Clients: who is connected, config snippets to copy, one-button setup for Claude Desktop,
// and the run_python description as the model sees it.
import { useEffect, useState } from "react";
import type { ApiResult } from "../../../shared/api/api-contract.js";
import type { TaintView } from "../../../shared/api/api-views.js";
import { Badge } from "../components/badge.js";
import { useMutation, useRequest } from "../api/hooks.js";
import { usePagedList } from "../api/use-paged-list.js";
import { ShowMore } from "../components/show-more.js";
import { Dialog } from "../components/dialog.js";
import { DialogFooter } from "../components/dialog-footer.js";
import { EmptyState, ErrorState, Loading, RequestView } from "../components/states.js";
import { formatDateTime, formatRelative } from "../lib/format.js";
import { useAppState } from "../state/app-state.js";
import { ResetTaintDialog } from "./clients/reset-taint-dialog.js";
import { SnippetsCard } from "./clients/snippets-card.js";

export function ClientsPage() {
  const { info } = useAppState();
  return (
    <div className="page">
      <ConnectedClients />
      <ClaudeDesktopCard />
      {/* A new request when HTTP is turned on or off: the HTTP entries come and go with it. */}
      <SnippetsCard key={info.data?.httpUrl ?? "off"} />
      <DescriptionCard />
    </div>
  );
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function ConnectedClients() {
  const clients = usePagedList("clients.list", "clients.changed");
  const list = clients.items;
  const now = useNow(30_000);
  const { taint } = useAppState();
  const [confirming, setConfirming] = useState<TaintView | null>(null);
  // The first page of the clients in private-data mode (the host sends it with every change).
  const records = taint.data?.items ?? [];
  const connectedNames = new Set((list ?? []).map((c) => c.name));
  const gone = records.filter((r) => !connectedNames.has(r.client));
  const recordOf = (name: string) => records.find((r) => r.client === name);
  return (
    <section className="card" aria-labelledby="connected-heading">
      <div className="card-header">
        <h2 id="connected-heading" className="card-title">
          Connected now
        </h2>
      </div>
      {!list && clients.error ? (
        <ErrorState error={clients.error} onRetry={clients.reload} />
      ) : null}
      {!list && !clients.error ? <Loading label="Loading clients…" /> : null}
      {list ? (
        list.length === 0 ? (
          <EmptyState title="No client is connected">
            Connect Claude Desktop below, or add Code Mode to another MCP client with one of the
            snippets. Clients show up here while they are running.
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">Connected clients</caption>
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col">Version</th>
                  <th scope="col">Connected</th>
                  <th scope="col" className="num">
                    Runs
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((client) => (
                  <tr key={client.connectionId}>
                    <td>
                      <strong>{client.name}</strong>
                      {client.transport === "http" ? (
                        <span className="muted small"> · HTTP</span>
                      ) : null}
                      <PrivateModeNote
                        record={recordOf(client.name)}
                        onReset={(record) => setConfirming(record)}
                      />
                    </td>
                    <td>{client.version || "—"}</td>
                    <td title={formatDateTime(client.since)}>
                      {formatRelative(client.since, now)}
                    </td>
                    <td className="num">
                      {client.runs.toLocaleString()}
                      {client.running > 0 ? (
                        <span className="running-note"> · {client.running} running</span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
      {list && clients.hasMore ? (
        <ShowMore
          shown={list.length}
          total={clients.total}
          what="clients"
          busy={clients.loadingMore}
          onMore={clients.loadMore}
        />
      ) : null}
      {list && gone.length > 0 ? (
        <div className="private-gone">
          <h3 className="card-subtitle">In private-data mode, not connected now</h3>
          <p className="muted small">
            If one of these connects again under the same name, it can still only call private
            tools, until you reset it or Code Mode restarts.
          </p>
          <ul className="private-gone-list">
            {gone.map((record) => (
              <li key={record.client}>
                <strong>{record.client}</strong>{" "}
                <span className="muted small">
                  since it called <code>{record.tool}</code> on {record.server}
                </span>{" "}
                <button
                  type="button"
                  className="button button-small"
                  aria-label={`Reset private-data mode for ${record.client}`}
                  onClick={() => setConfirming(record)}
                >
                  Reset
                </button>
              </li>
            ))}
          </ul>
        </div>
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
    </section>
  );
}

/** The private-data rule on a client's row: since when, because of which tool, and Reset. */
function PrivateModeNote(props: {
  record: TaintView | undefined;
  onReset: (record: TaintView) => void;
}) {
  const { record } = props;
  if (!record) return null;
  return (
    <div
      className="private-note"
      role="group"
      aria-label={`Private-data mode for ${record.client}`}
    >
      <Badge tone="private">Private-data mode</Badge>{" "}
      <span className="small">
        Since {formatDateTime(record.at)}, when it called <code>{record.tool}</code> on{" "}
        {record.server} (a private tool), it can only call private tools, so what it read cannot
        reach another server.
      </span>{" "}
      <button
        type="button"
        className="button button-small"
        aria-label={`Reset private-data mode for ${record.client}`}
        onClick={() => props.onReset(record)}
      >
        Reset
      </button>
    </div>
  );
}

function ClaudeDesktopCard() {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<ApiResult<"clients.claudeDesktopApply"> | null>(null);
  return (
    <section className="card" aria-labelledby="claude-heading">
      <div className="card-header">
        <h2 id="claude-heading" className="card-title">
          Claude Desktop
        </h2>
      </div>
      <p className="card-text">
        Add Code Mode to Claude Desktop&rsquo;s settings file. You will see exactly what changes
        before anything is written, and the old file is kept as a backup.
      </p>
      {done ? (
        <div className="callout callout-ok" role="status">
          <div className="callout-text">
            <strong>Claude Desktop is set up.</strong>
            <p>Quit and reopen Claude Desktop to load Code Mode.</p>
            <p className="small">
              Updated <code className="wrap-anywhere">{done.path}</code>
              {done.backup ? (
                <>
                  . The previous version is saved as{" "}
                  <code className="wrap-anywhere">{done.backup}</code>
                </>
              ) : null}
              .
            </p>
          </div>
        </div>
      ) : null}
      <div className="card-actions">
        <button type="button" className="button button-primary" onClick={() => setOpen(true)}>
          Add to Claude Desktop
        </button>
      </div>
      {open ? (
        <ClaudeDesktopDialog
          onClose={() => setOpen(false)}
          onApplied={(result) => {
            setDone(result);
            setOpen(false);
          }}
        />
      ) : null}
    </section>
  );
}

function ClaudeDesktopDialog(props: {
  onClose: () => void;
  onApplied: (result: ApiResult<"clients.claudeDesktopApply">) => void;
}) {
  const preview = useRequest("clients.claudeDesktopPreview", {});
  const apply = useMutation("clients.claudeDesktopApply");
  const unchanged = preview.data ? preview.data.before === preview.data.after : false;

  return (
    <Dialog
      wide
      title="Add Code Mode to Claude Desktop"
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          confirmLabel="Save changes"
          busyLabel="Saving…"
          busy={apply.busy}
          disabled={!preview.data || unchanged}
          onConfirm={() => {
            if (!preview.data) return;
            void apply.run({ expectedBefore: preview.data.before }).then((r) => {
              if (r.ok) props.onApplied(r.value);
            });
          }}
        />
      }
    >
      {preview.loading && !preview.data ? <Loading label="Preparing the change…" /> : null}
      {preview.error && !preview.data ? (
        <ErrorState error={preview.error} onRetry={preview.reload} />
      ) : null}
      {preview.data ? (
        <>
          <p>
            {preview.data.exists ? "This file will be changed:" : "This file will be created:"}{" "}
            <code className="wrap-anywhere">{preview.data.path}</code>
          </p>
          {unchanged ? (
            <div className="callout callout-ok">
              <div className="callout-text">
                <strong>Already set up.</strong>
                <p>Claude Desktop already has Code Mode; nothing needs to change.</p>
              </div>
            </div>
          ) : (
            <Diff text={preview.data.diff} />
          )}
        </>
      ) : null}
      {apply.error ? (
        <ErrorState
          error={apply.error}
          title={
            apply.error.code === "conflict"
              ? "The file changed since this preview"
              : "Claude Desktop was not changed"
          }
          onRetry={
            apply.error.code === "conflict"
              ? () => {
                  apply.clearError();
                  preview.reload();
                }
              : undefined
          }
        />
      ) : null}
    </Dialog>
  );
}

function Diff(props: { text: string }) {
  const lines = props.text.replace(/\n$/, "").split("\n");
  return (
    <pre className="diff" tabIndex={0} aria-label="Changes to the file">
      {lines.map((line, i) => {
        const kind =
          line.startsWith("+++") || line.startsWith("---")
            ? "meta"
            : line.startsWith("@@")
              ? "hunk"
              : line.startsWith("+")
                ? "add"
                : line.startsWith("-")
                  ? "del"
                  : "ctx";
        return (
          <span key={i} className={`diff-line diff-${kind}`}>
            {kind === "add" ? <span className="visually-hidden">Added: </span> : null}
            {kind === "del" ? <span className="visually-hidden">Removed: </span> : null}
            {line}
            {"\n"}
          </span>
        );
      })}
    </pre>
  );
}

function DescriptionCard() {
  const description = useRequest("app.description", {});
  return (
    <section className="card" aria-labelledby="description-heading">
      <div className="card-header">
        <h2 id="description-heading" className="card-title">
          What the model sees
        </h2>
        <button type="button" className="button button-small" onClick={description.reload}>
          Refresh
        </button>
      </div>
      <p className="card-text">
        Clients get one tool, <code>run_python</code>. This is its description, listing the tools
        the code can call.
      </p>
      <RequestView state={description} loadingLabel="Loading the description…">
        {(data) => (
          <pre
            className="code-block code-block-tall"
            tabIndex={0}
            aria-label="run_python description"
          >
            {data.text}
          </pre>
        )}
      </RequestView>
    </section>
  );
}

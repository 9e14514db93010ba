// Clients: who is connected, config snippets to copy, one-button setup for Claude Desktop,
// and the run_python description as the model sees it.
import { useEffect, useState } from "react";
import type { ApiResult } from "../../../shared/api/api-contract.js";
import type { ClientSnippets } from "../../../shared/api/api-views.js";
import { useLiveList, useMutation, useRequest } from "../api/hooks.js";
import { CopyButton } from "../components/copy-button.js";
import { Dialog } from "../components/dialog.js";
import { DialogFooter } from "../components/dialog-footer.js";
import { EmptyState, ErrorState, Loading, RequestView } from "../components/states.js";
import { formatDateTime, formatRelative } from "../lib/format.js";
import { hrefFor } from "../lib/router.js";
import { useAppState } from "../state/app-state.js";

export function ClientsPage() {
  return (
    <div className="page">
      <ConnectedClients />
      <ClaudeDesktopCard />
      <SnippetsCard />
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
  const clients = useLiveList("clients.list", "clients.changed");
  const now = useNow(30_000);
  return (
    <section className="card" aria-labelledby="connected-heading">
      <div className="card-header">
        <h2 id="connected-heading" className="card-title">
          Connected now
        </h2>
      </div>
      <RequestView state={clients} loadingLabel="Loading clients…">
        {(list) =>
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
        }
      </RequestView>
    </section>
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

const SNIPPETS: { key: keyof ClientSnippets; title: string; where: string }[] = [
  {
    key: "claudeDesktop",
    title: "Claude Desktop",
    where: "Settings → Developer → Edit Config, inside claude_desktop_config.json.",
  },
  { key: "cursor", title: "Cursor", where: "Cursor Settings → MCP, or ~/.cursor/mcp.json." },
  {
    key: "vscode",
    title: "VS Code",
    where: "The MCP servers file, .vscode/mcp.json or your user settings.",
  },
  { key: "claudeCode", title: "Claude Code", where: "Run this in a terminal." },
];

function HttpNote() {
  const { info } = useAppState();
  const url = info.data?.httpUrl ?? null;
  if (!url) {
    return (
      <p className="muted small">
        Clients that connect over HTTP instead of starting a program can use Code Mode once the
        local HTTP transport is turned on in <a href={hrefFor("sandbox")}>Sandbox → Advanced</a>.
      </p>
    );
  }
  return (
    <div className="http-note">
      <span className="small">
        MCP over HTTP (this computer only): <code className="wrap-anywhere">{url}</code>
      </span>
      <CopyButton text={url} ariaLabel="Copy HTTP address" label="Copy" />
    </div>
  );
}

function SnippetsCard() {
  const snippets = useRequest("clients.snippets", {});
  const [tab, setTab] = useState<keyof ClientSnippets>("claudeDesktop");
  return (
    <section className="card" aria-labelledby="snippets-heading">
      <div className="card-header">
        <h2 id="snippets-heading" className="card-title">
          Other clients
        </h2>
      </div>
      <p className="card-text">Copy the setting for your client and paste it where it says.</p>
      <RequestView state={snippets} loadingLabel="Loading snippets…">
        {(data) => (
          <div className="snippets">
            <div className="tabs" role="tablist" aria-label="Client">
              {SNIPPETS.map((s) => (
                <button
                  key={s.key}
                  type="button"
                  role="tab"
                  id={`tab-${s.key}`}
                  aria-selected={tab === s.key}
                  aria-controls={`panel-${s.key}`}
                  tabIndex={tab === s.key ? 0 : -1}
                  className={`tab${tab === s.key ? " is-selected" : ""}`}
                  onClick={() => setTab(s.key)}
                  onKeyDown={(e) => {
                    const i = SNIPPETS.findIndex((x) => x.key === tab);
                    let next = -1;
                    if (e.key === "ArrowRight") next = (i + 1) % SNIPPETS.length;
                    if (e.key === "ArrowLeft") next = (i - 1 + SNIPPETS.length) % SNIPPETS.length;
                    if (e.key === "Home") next = 0;
                    if (e.key === "End") next = SNIPPETS.length - 1;
                    if (next >= 0) {
                      e.preventDefault();
                      const key = SNIPPETS[next]!.key;
                      setTab(key);
                      document.getElementById(`tab-${key}`)?.focus();
                    }
                  }}
                >
                  {s.title}
                </button>
              ))}
            </div>
            {SNIPPETS.map((s) => (
              <div
                key={s.key}
                role="tabpanel"
                id={`panel-${s.key}`}
                aria-labelledby={`tab-${s.key}`}
                hidden={tab !== s.key}
                className="tab-panel"
              >
                <div className="snippet-head">
                  <p className="muted small">{s.where}</p>
                  <CopyButton
                    text={data[s.key]}
                    ariaLabel={`Copy ${s.title} config`}
                    label="Copy"
                  />
                </div>
                <pre className="code-block" tabIndex={0} aria-label={`${s.title} config`}>
                  {data[s.key]}
                </pre>
              </div>
            ))}
          </div>
        )}
      </RequestView>
      <HttpNote />
    </section>
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

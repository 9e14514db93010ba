// Servers: the wrapped MCP servers, live, with add / paste / import, and one server's detail.
import { useEffect, useState } from "react";
import type { ServerView } from "../../../shared/api/api-views.js";
import type { CatalogEntry } from "../../../shared/server-catalog/catalog-schema.js";
import { usePagedList } from "../api/use-paged-list.js";
import { Badge } from "../components/badge.js";
import { FirstSteps } from "../components/first-steps.js";
import { EmptyState, ErrorState, Loading } from "../components/states.js";
import { ShowMore } from "../components/show-more.js";
import { hrefFor, navigate, useRoute } from "../lib/router.js";
import { plural } from "../lib/format.js";
import { startErrorText } from "../lib/start-error.js";
import { BundleAddDialog } from "./servers/bundle-add-dialog.js";
import { CatalogAddDialog } from "./servers/catalog-add-dialog.js";
import { CatalogGalleryDialog } from "./servers/catalog-gallery.js";
import { ImportClaudeDialog, PasteJsonDialog } from "./servers/import-dialogs.js";
import { ServerDetail } from "./servers/server-detail.js";
import { ServerFormDialog } from "./servers/server-form-dialog.js";
import { ServerPathNote } from "./servers/server-path-note.js";
import { ServerStatusBadge } from "./servers/server-status-badge.js";
import { commandLine } from "./servers/server-entry.js";

type OpenDialog =
  | { kind: "gallery" }
  | { kind: "catalog"; entry: CatalogEntry }
  | { kind: "bundle" }
  | { kind: "add" }
  | { kind: "edit"; server: ServerView }
  | { kind: "paste" }
  | { kind: "import" }
  | null;

export function ServersPage() {
  const servers = usePagedList("servers.list", "servers.changed");
  const route = useRoute();
  const selectedName = route.params.get("name");
  const wantsAdd = route.params.get("add") === "1";
  const [dialog, setDialog] = useState<OpenDialog>(null);

  // `#/servers?add=1` (from First run) opens the gallery once.
  useEffect(() => {
    if (!wantsAdd) return;
    setDialog({ kind: "gallery" });
    navigate("servers", {}, { replace: true });
  }, [wantsAdd]);

  const list = servers.items;
  const selected = selectedName ? (list?.find((s) => s.name === selectedName) ?? null) : null;
  // A server past the pages shown (a link to it, or a long list): ask for pages until it is in.
  const { hasMore, loadingMore, loadMore } = servers;
  const seeking = selectedName !== null && list !== undefined && !selected && hasMore;
  useEffect(() => {
    if (seeking && !loadingMore) loadMore();
  }, [seeking, loadingMore, loadMore]);

  const dialogs = (
    <>
      {dialog?.kind === "gallery" ? (
        <CatalogGalleryDialog
          onClose={() => setDialog(null)}
          onChoose={(entry) => setDialog({ kind: "catalog", entry })}
          onBlankForm={() => setDialog({ kind: "add" })}
          onPasteJson={() => setDialog({ kind: "paste" })}
          onBundle={() => setDialog({ kind: "bundle" })}
        />
      ) : null}
      {dialog?.kind === "bundle" ? (
        <BundleAddDialog
          onBack={() => setDialog({ kind: "gallery" })}
          onClose={() => setDialog(null)}
          onAdded={(next, name) => {
            servers.setData(next);
            setDialog(null);
            navigate("servers", { name });
          }}
        />
      ) : null}
      {dialog?.kind === "catalog" ? (
        <CatalogAddDialog
          entry={dialog.entry}
          existing={list ?? []}
          onBack={() => setDialog({ kind: "gallery" })}
          onClose={() => setDialog(null)}
          onAdded={(next, name) => {
            servers.setData(next);
            setDialog(null);
            navigate("servers", { name });
          }}
        />
      ) : null}
      {dialog?.kind === "add" || dialog?.kind === "edit" ? (
        <ServerFormDialog
          server={dialog.kind === "edit" ? dialog.server : null}
          onClose={() => setDialog(null)}
          onSaved={(next, name) => {
            servers.setData(next);
            setDialog(null);
            navigate("servers", { name });
          }}
        />
      ) : null}
      {dialog?.kind === "paste" ? (
        <PasteJsonDialog
          existing={list ?? []}
          onClose={() => setDialog(null)}
          onAdded={(next) => {
            servers.setData(next);
            setDialog(null);
          }}
        />
      ) : null}
      {dialog?.kind === "import" ? (
        <ImportClaudeDialog
          existing={list ?? []}
          onClose={() => setDialog(null)}
          onAdded={(next) => {
            servers.setData(next);
            setDialog(null);
          }}
        />
      ) : null}
    </>
  );

  if (selectedName && list) {
    if (seeking) return <Loading label="Loading servers…" />;
    if (!selected) {
      return (
        <div className="page">
          <a className="back-link" href={hrefFor("servers")}>
            <span aria-hidden="true">←</span> All servers
          </a>
          <EmptyState title={`There is no server called “${selectedName}”`}>
            It may have been removed or renamed.
          </EmptyState>
        </div>
      );
    }
    return (
      <>
        <ServerDetail
          server={selected}
          onEdit={() => setDialog({ kind: "edit", server: selected })}
          onChanged={servers.setData}
          onRemoved={(next) => {
            servers.setData(next);
            navigate("servers");
          }}
        />
        {dialogs}
      </>
    );
  }

  return (
    <div className="page">
      <FirstSteps />
      <div className="page-intro">
        <p className="lead">
          The MCP servers whose tools your assistant&rsquo;s code can call. Each one runs on this
          computer; Code Mode checks every call before it reaches them.
        </p>
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            onClick={() => setDialog({ kind: "gallery" })}
          >
            Add server
          </button>
          <button type="button" className="button" onClick={() => setDialog({ kind: "paste" })}>
            Paste JSON
          </button>
          <button type="button" className="button" onClick={() => setDialog({ kind: "import" })}>
            Import from Claude Desktop
          </button>
        </div>
      </div>

      {!list && servers.error ? (
        <ErrorState error={servers.error} onRetry={servers.reload} />
      ) : null}
      {!list && !servers.error ? <Loading label="Loading servers…" /> : null}
      {list && servers.error ? (
        <ErrorState error={servers.error} onRetry={servers.reload} compact />
      ) : null}
      {list && list.length === 0 ? (
        <EmptyState title="No servers yet">
          Add one with the buttons above: fill in a form, paste the JSON snippet from a
          server&rsquo;s instructions, or bring over the servers you already use in Claude Desktop.
        </EmptyState>
      ) : null}
      {list ? <HeldSummary total={servers.first?.held ?? 0} shown={list} /> : null}
      {list && list.length > 0 ? (
        <ul className="server-list" aria-label="Servers">
          {list.map((server) => (
            <ServerRow key={server.name} server={server} />
          ))}
        </ul>
      ) : null}
      {list && servers.hasMore ? (
        <ShowMore
          shown={list.length}
          total={servers.total}
          what="servers"
          busy={servers.loadingMore}
          onMore={servers.loadMore}
        />
      ) : null}
      <ServerPathNote />
      {dialogs}
    </div>
  );
}

function ServerRow(props: { server: ServerView }) {
  const { server } = props;
  return (
    <li className={`server-row${server.status === "failed" ? " is-failed" : ""}`}>
      <div className="server-row-main">
        <a className="server-name" href={hrefFor("servers", { name: server.name })}>
          {server.name}
        </a>
        <code className="server-command">{commandLine(server.command, server.args)}</code>
        {server.status === "failed" ? (
          <div className="server-failure">
            {server.lastError ? (
              <p>{startErrorText(server.lastError, server.stderrTail.length > 0)}</p>
            ) : null}
            {server.stderrTail.length > 0 ? (
              <pre className="code-block code-block-bad" aria-label={`Output of ${server.name}`}>
                {server.stderrTail.slice(-5).join("\n")}
              </pre>
            ) : null}
          </div>
        ) : null}
      </div>
      <div className="server-row-meta">
        <ServerStatusBadge server={server} />
        {server.held > 0 ? (
          <a href={hrefFor("servers", { name: server.name })} className="badge-link">
            <Badge tone="warn">Changes to review ({server.held})</Badge>
          </a>
        ) : null}
        <span className="muted small">
          {server.status === "ready" || server.toolCount > 0
            ? plural(server.toolCount, "tool")
            : ""}
        </span>
      </div>
    </li>
  );
}

/**
 * Above the list while any server has tools held for review: how many in all (the host counts
 * every server), and the servers among those shown, linked.
 */
function HeldSummary(props: { total: number; shown: ServerView[] }) {
  const { total } = props;
  if (total === 0) return null;
  const held = props.shown.filter((s) => s.held > 0);
  const listed = held.reduce((sum, s) => sum + s.held, 0);
  return (
    <div className="callout callout-warn" role="status" aria-label="Changes to review">
      <div className="callout-text">
        <strong>{plural(total, "tool")} held for review</strong>
        <p>
          Servers changed, added or removed tools since you accepted them. The code cannot call a
          held tool until you accept the change. Review them on the server&rsquo;s page:
        </p>
        <ul>
          {held.map((server) => (
            <li key={server.name}>
              <a href={hrefFor("servers", { name: server.name })}>{server.name}</a> (
              {plural(server.held, "tool")})
            </li>
          ))}
          {listed < total ? (
            <li>{plural(total - listed, "more tool")} on servers further down the list</li>
          ) : null}
        </ul>
      </div>
    </div>
  );
}

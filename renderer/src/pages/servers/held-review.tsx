// "Changes to review" on a server's page: the tools whose definition changed since it was
// pinned, new tools and removed ones. Held tools are out of the catalog until the user accepts
// them; each shows what changed (description and schema, line by line) with Accept and Reject,
// and "Accept all" takes every change still to decide that is shown (a plain button, never the
// main one: a change is to be read first). A rejected change leaves the list for a "Rejected" fold, where it
// can still be accepted. Each review names the hash of the definition shown: if the server
// changed it again meanwhile, the host refuses, and the page says so and shows the new
// definition.
import { useId, useMemo } from "react";
import type { HeldToolView, ServerView } from "../../../../shared/api/api-views.js";
import { visibleText } from "../../../../shared/hidden-chars.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { useMutation } from "../../api/hooks.js";
import { Badge } from "../../components/badge.js";
import { ErrorState, Loading } from "../../components/states.js";
import { plural } from "../../lib/format.js";
import { lineDiff } from "../../lib/line-diff.js";
import { definitionTexts } from "../../lib/tool-definition-text.js";
import { useHeldTools } from "./use-held-tools.js";

const KIND_LABELS: Record<HeldToolView["kind"], string> = {
  changed: "Changed",
  added: "New tool",
  removed: "Removed",
};

/** What accepting does, per kind, in words (the buttons say only Accept and Reject). */
const KIND_TEXT: Record<HeldToolView["kind"], string> = {
  changed:
    "Its definition differs from the one you accepted. Until you accept it, the code cannot call it.",
  added:
    "The server offers a tool you have not accepted yet. Until you do, the code cannot call it.",
  removed:
    "The server no longer lists this tool. Accepting forgets its pinned definition; rejecting keeps it, so the tool is held if it comes back changed.",
};

export function HeldReview(props: { server: ServerView }) {
  const { server } = props;
  const held = useHeldTools(server.name);
  const acceptAll = useMutation("servers.review");
  const headingId = useId();
  const rejectedId = useId();
  // server.held counts the changes still to decide; rejected ones are listed too.
  const listed = held.data ?? [];
  const pending = listed.filter((t) => !t.rejected);
  const rejected = listed.filter((t) => t.rejected);
  if (server.held === 0 && listed.length === 0) return null;
  const toDecide = server.held > 0 || pending.length > 0;
  const acceptShown = async () => {
    // What is shown, with the hashes shown; a list longer than one request takes several.
    for (let at = 0; at < pending.length; at += API_LIMITS.reviewMaxTools) {
      const tools = pending
        .slice(at, at + API_LIMITS.reviewMaxTools)
        .map((t) => ({ tool: t.tool, hash: t.hash }));
      const response = await acceptAll.run({ name: server.name, decision: "accept", tools });
      if (!response.ok) {
        if (response.error.code === "conflict") held.reload();
        return;
      }
    }
  };
  return (
    <section className="card held-review" aria-labelledby={headingId}>
      <div className="card-header card-header-wrap">
        <div className="title-with-badge">
          <h3 id={headingId} className="card-title">
            {toDecide ? "Changes to review" : "Rejected changes"}
          </h3>
          {server.held > 0 ? <Badge tone="warn">{plural(server.held, "tool")} held</Badge> : null}
        </div>
        {pending.length > 0 ? (
          <button
            type="button"
            className="button"
            disabled={acceptAll.busy}
            onClick={() => void acceptShown()}
          >
            {acceptAll.busy
              ? "Accepting…"
              : held.next === null
                ? `Accept all ${pending.length}`
                : `Accept all ${pending.length} shown`}
          </button>
        ) : null}
      </div>
      <p className="card-text muted">
        Code Mode pinned the definition of each tool of <strong>{server.name}</strong> when you
        accepted it. These tools differ from their pins, so the code cannot call them until you
        accept. A change can turn a harmless tool into one that sends your data elsewhere: read the
        description and the schema before accepting.
      </p>
      {acceptAll.error ? <ErrorState error={acceptAll.error} compact /> : null}
      {held.error ? <ErrorState error={held.error} onRetry={held.reload} compact /> : null}
      {!held.data && !held.error ? <Loading label="Loading the held changes…" /> : null}
      {held.data && pending.length > 0 ? (
        <ul className="held-list" aria-label={`Changes to review on ${server.name}`}>
          {pending.map((tool) => (
            <HeldItem key={`${tool.kind}:${tool.tool}`} view={tool} onStale={held.reload} />
          ))}
        </ul>
      ) : null}
      {held.data && pending.length === 0 && toDecide ? (
        <p className="muted small">The rest of the changes are further down the list.</p>
      ) : null}
      {rejected.length > 0 ? (
        <details className="disclosure held-rejected">
          <summary id={rejectedId}>Rejected ({rejected.length})</summary>
          <p className="muted small">
            You rejected these changes: the code cannot call these tools until the server changes
            them again. You can still accept one here.
          </p>
          <ul className="held-list" aria-labelledby={rejectedId}>
            {rejected.map((tool) => (
              <HeldItem key={`${tool.kind}:${tool.tool}`} view={tool} onStale={held.reload} />
            ))}
          </ul>
        </details>
      ) : null}
      {held.next !== null ? (
        <button
          type="button"
          className="button button-small"
          disabled={held.loadingMore}
          onClick={held.more}
        >
          {held.loadingMore ? "Loading…" : "Show more"}
        </button>
      ) : null}
    </section>
  );
}

function HeldItem(props: { view: HeldToolView; onStale: () => void }) {
  const { view, onStale } = props;
  const review = useMutation("servers.review");
  const nameId = useId();
  // A definition too large to keep is only its hash: that side cannot be shown.
  const pinnedHash = notKeptHash(view.pinned);
  const currentHash = notKeptHash(view.current);
  const before = definitionTexts(pinnedHash === null ? view.pinned : null);
  const after = definitionTexts(currentHash === null ? view.current : null);
  const comparable = view.kind === "changed" && pinnedHash === null && currentHash === null;
  const shownWhole = view.kind === "removed" || currentHash !== null ? before : after;
  const side = view.kind !== "changed" ? "" : shownWhole === before ? " as pinned" : " now";
  const send = async (decision: "accept" | "reject") => {
    const tools = [{ tool: view.tool, hash: view.hash }];
    const response = await review.run({ name: view.server, decision, tools });
    // Changed again since shown: the message stays beside the new definition.
    if (!response.ok && response.error.code === "conflict") onStale();
  };
  return (
    <li className="held" aria-labelledby={nameId}>
      <div className="tool-head">
        <h4 id={nameId} className="tool-name">
          {visibleText(view.tool)}
        </h4>
        <Badge tone={view.kind === "removed" ? "neutral" : "warn"}>{KIND_LABELS[view.kind]}</Badge>
        {view.rejected ? <Badge tone="bad">Rejected</Badge> : null}
      </div>
      <p className="muted small">
        {view.rejected
          ? "You rejected this change: it stays out until the server changes it."
          : KIND_TEXT[view.kind]}
      </p>
      {pinnedHash !== null ? (
        <p className="small muted">
          The pinned definition was too large to keep: only its hash is, <code>{pinnedHash}</code>.
        </p>
      ) : null}
      {currentHash !== null ? (
        <p className="small muted">
          The definition the server lists now is too large to show: its hash is{" "}
          <code>{currentHash}</code>.
        </p>
      ) : null}
      {comparable ? (
        <>
          <DiffBlock label="Description" before={before.description} after={after.description} />
          <DiffBlock label="Schema" before={before.schema} after={after.schema} />
        </>
      ) : pinnedHash !== null && currentHash !== null ? null : (
        <>
          <WholeBlock label={`Description${side}`} text={shownWhole.description} />
          <WholeBlock label={`Schema${side}`} text={shownWhole.schema} />
        </>
      )}
      <div className="approval-actions">
        <button
          type="button"
          className="button"
          disabled={review.busy}
          aria-label={`Accept the change to ${visibleText(view.tool)}`}
          onClick={() => void send("accept")}
        >
          Accept
        </button>
        {view.rejected ? null : (
          <button
            type="button"
            className="button button-danger"
            disabled={review.busy}
            aria-label={`Reject the change to ${visibleText(view.tool)}`}
            onClick={() => void send("reject")}
          >
            Reject
          </button>
        )}
      </div>
      {review.error ? <div className="field-error">{review.error.message}</div> : null}
    </li>
  );
}

/** One text, pinned against current, line by line (or both whole past the diff's caps). */
function DiffBlock(props: { label: string; before: string; after: string }) {
  // Bounded (REVIEW_DIFF_LIMITS) but not free: computed again only when a text changes, not
  // on every servers.changed that redraws the page.
  const diff = useMemo(() => lineDiff(props.before, props.after), [props.before, props.after]);
  if (props.before === props.after) {
    return (
      <div className="held-part">
        <span className="small muted">{props.label}: unchanged</span>
      </div>
    );
  }
  if (diff.kind === "whole") {
    return (
      <div className="held-part">
        <span className="small muted">{props.label}</span>
        <p className="small muted">{diff.note}</p>
        <WholeBlock label={`${props.label} as pinned`} text={diff.before} />
        <WholeBlock label={`${props.label} now`} text={diff.after} />
      </div>
    );
  }
  return (
    <div className="held-part">
      <span className="small muted">{props.label}: changes</span>
      <pre
        className="diff diff-wrap"
        tabIndex={0}
        aria-label={`${props.label}: pinned against now`}
      >
        {diff.lines.map((line, i) => {
          const kind = line.kind === "added" ? "add" : line.kind === "removed" ? "del" : "ctx";
          const mark = line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  ";
          return (
            // The mark says it in text too: the colour never carries the meaning alone.
            <span key={i} className={`diff-line diff-${kind}`}>
              {mark}
              {line.text}
              {"\n"}
            </span>
          );
        })}
      </pre>
    </div>
  );
}

function WholeBlock(props: { label: string; text: string }) {
  return (
    <div className="held-part">
      <span className="small muted">{props.label}</span>
      <pre className="code-block" tabIndex={0} aria-label={props.label}>
        {props.text === "" ? "(none)" : props.text}
      </pre>
    </div>
  );
}

/**
 * A pinned definition too large to keep is stored as its hash alone
 * (`{"notKept": ..., "hash": ...}`): the review then cannot show the old side.
 */
function notKeptHash(pinned: Record<string, unknown> | null): string | null {
  if (pinned === null || typeof pinned.notKept !== "string") return null;
  return typeof pinned.hash === "string" ? pinned.hash : "(unknown)";
}

// The banners under the header: connection lost, paused, startup problems, and at most one
// compact line for private-data mode (the rule itself is shown where it applies: the client's
// row on the Clients page, and the run in the Audit page).
import type { ServerView, TaintView } from "../../../shared/api/api-views.js";
import { useConnection, useLiveList, useMutation } from "../api/hooks.js";
import { hrefFor } from "../lib/router.js";
import { useAppState } from "../state/app-state.js";
import { ShieldIcon } from "./icons.js";

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
            previous tools that did not change stay in use until this is fixed.
            <ul className="banner-list">
              <li>{catalogError}</li>
            </ul>
          </div>
        </div>
      ) : null}
    </>
  );
}

/**
 * Whether private-data mode can block anything: some allowed tool of some server is not
 * private. With every tool private, a client in that mode can still call all of them.
 */
export function somethingToBlock(servers: readonly ServerView[]): boolean {
  return servers.some((server) => {
    if (server.private === true) return false;
    const labels = server.private === false ? [] : server.private;
    if (server.allow !== null) return server.allow.some((tool) => !labels.includes(tool));
    return server.toolCount > labels.length;
  });
}

/** The tainted clients that are connected now: the ones the rule still holds back. */
export function taintedAndConnected(
  taint: readonly TaintView[],
  connected: readonly { name: string }[],
): TaintView[] {
  const names = new Set(connected.map((client) => client.name));
  return taint.filter((record) => names.has(record.client));
}

/**
 * One line while a connected client is in private-data mode and the mode holds something back;
 * none for clients that left, or when every tool is private. The Clients page says the rest.
 */
export function TaintSummary() {
  const { taint } = useAppState();
  const clients = useLiveList("clients.list", "clients.changed");
  const servers = useLiveList("servers.list", "servers.changed");
  const active = taintedAndConnected(taint.data?.items ?? [], clients.data?.items ?? []);
  if (active.length === 0 || !somethingToBlock(servers.data?.items ?? [])) return null;
  const who =
    active.length === 1 ? (
      <strong>{active[0]!.client}</strong>
    ) : (
      <strong>{active.length} connected clients</strong>
    );
  return (
    <section className="banner banner-private banner-compact" aria-label="Private-data mode">
      <span className="banner-icon">
        <ShieldIcon />
      </span>
      <div className="banner-text">Private-data mode: {who} can only call private tools now.</div>
      <a className="button button-small" href={hrefFor("clients")}>
        Details
      </a>
    </section>
  );
}

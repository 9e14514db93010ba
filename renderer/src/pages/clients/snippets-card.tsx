// Setup snippets for the clients Code Mode does not set up itself: the shim entry for each,
// and, while MCP over HTTP is on, ready HTTP entries carrying the install's token. The host
// writes every snippet (clients.snippets); this card only shows them.
import { useState } from "react";
import type { ClientSnippets, HttpClientSnippets } from "../../../../shared/api/api-views.js";
import { GEMINI_TRUST_NOTE } from "../../../../shared/client-notes.js";
import { useRequest } from "../../api/hooks.js";
import { CopyButton } from "../../components/copy-button.js";
import { RequestView } from "../../components/states.js";
import { hrefFor } from "../../lib/router.js";

interface SnippetTab {
  key: string;
  title: string;
  where: string;
  text: string;
}

const SHIM_TABS: { key: Exclude<keyof ClientSnippets, "http">; title: string; where: string }[] = [
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
  { key: "gemini", title: "Gemini CLI", where: `Run this in a terminal. ${GEMINI_TRUST_NOTE}` },
];

const HTTP_TABS: {
  key: Exclude<keyof HttpClientSnippets, "url" | "token">;
  title: string;
  where: string;
}[] = [
  {
    key: "claudeCode",
    title: "Claude Code",
    where:
      "Run this in a terminal. Claude Code asks Code Mode for the token each time it connects, " +
      "so the command holds none.",
  },
  {
    key: "cursor",
    title: "Cursor",
    where: "~/.cursor/mcp.json, or .cursor/mcp.json in a project.",
  },
  {
    key: "vscode",
    title: "VS Code",
    where: ".vscode/mcp.json, or your user mcp.json (MCP: Open User Configuration).",
  },
  {
    key: "gemini",
    title: "Gemini CLI",
    where: `~/.gemini/settings.json, or .gemini/settings.json in a project. ${GEMINI_TRUST_NOTE}`,
  },
];

/** One snippet at a time, chosen with tabs (arrow keys, Home and End move between them). */
function SnippetTabs(props: {
  /** Keeps the ids of two tab sets on one page apart. */
  idPrefix: string;
  label: string;
  /** Appended to a tab's title to name its snippet, e.g. "config". */
  noun: string;
  tabs: SnippetTab[];
}) {
  const { tabs, idPrefix } = props;
  const [tab, setTab] = useState(tabs[0]!.key);
  const id = (kind: string, key: string) => `${idPrefix}-${kind}-${key}`;
  return (
    <div className="snippets">
      <div className="tabs" role="tablist" aria-label={props.label}>
        {tabs.map((s) => (
          <button
            key={s.key}
            type="button"
            role="tab"
            id={id("tab", s.key)}
            aria-selected={tab === s.key}
            aria-controls={id("panel", s.key)}
            tabIndex={tab === s.key ? 0 : -1}
            className={`tab${tab === s.key ? " is-selected" : ""}`}
            onClick={() => setTab(s.key)}
            onKeyDown={(e) => {
              const i = tabs.findIndex((x) => x.key === tab);
              let next = -1;
              if (e.key === "ArrowRight") next = (i + 1) % tabs.length;
              if (e.key === "ArrowLeft") next = (i - 1 + tabs.length) % tabs.length;
              if (e.key === "Home") next = 0;
              if (e.key === "End") next = tabs.length - 1;
              if (next >= 0) {
                e.preventDefault();
                const key = tabs[next]!.key;
                setTab(key);
                document.getElementById(id("tab", key))?.focus();
              }
            }}
          >
            {s.title}
          </button>
        ))}
      </div>
      {tabs.map((s) => (
        <div
          key={s.key}
          role="tabpanel"
          id={id("panel", s.key)}
          aria-labelledby={id("tab", s.key)}
          hidden={tab !== s.key}
          className="tab-panel"
        >
          <div className="snippet-head">
            <p className="muted small">{s.where}</p>
            <CopyButton text={s.text} ariaLabel={`Copy ${s.title} ${props.noun}`} label="Copy" />
          </div>
          <pre className="code-block" tabIndex={0} aria-label={`${s.title} ${props.noun}`}>
            {s.text}
          </pre>
        </div>
      ))}
    </div>
  );
}

function HttpOff() {
  return (
    <p className="muted small">
      Clients that connect over HTTP instead of starting a program can use Code Mode once the local
      HTTP connection is turned on in <a href={hrefFor("sandbox")}>Sandbox → Advanced</a>.
    </p>
  );
}

function HttpEntries(props: { http: HttpClientSnippets }) {
  const { http } = props;
  return (
    <div className="http-entries" role="group" aria-labelledby="http-entries-heading">
      <h3 id="http-entries-heading" className="card-subtitle">
        Over HTTP
      </h3>
      <p className="card-text">
        For clients that connect to an address. Each entry carries this install&rsquo;s token:
        whoever has it can use Code Mode as you, so keep it out of files you share.
      </p>
      <div className="http-note">
        <span className="small">
          Address (this computer only): <code className="wrap-anywhere">{http.url}</code>
        </span>
        <CopyButton text={http.url} ariaLabel="Copy HTTP address" label="Copy" />
      </div>
      <div className="http-note">
        <span className="small">
          Header: <code>Authorization: Bearer</code> and the token
        </span>
        <CopyButton text={http.token} ariaLabel="Copy token" label="Copy token" />
      </div>
      <SnippetTabs
        idPrefix="http"
        label="HTTP client"
        noun="HTTP entry"
        tabs={HTTP_TABS.map((t) => ({ ...t, text: http[t.key] }))}
      />
    </div>
  );
}

export function SnippetsCard() {
  const snippets = useRequest("clients.snippets", {});
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
          <>
            <SnippetTabs
              idPrefix="shim"
              label="Client"
              noun="config"
              tabs={SHIM_TABS.map((t) => ({ ...t, text: data[t.key] }))}
            />
            {data.http ? <HttpEntries http={data.http} /> : <HttpOff />}
          </>
        )}
      </RequestView>
    </section>
  );
}

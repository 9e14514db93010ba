// The tools of one server, with their Allowed, Ask first, Private and Hide arguments switches.
// Each switch is named with its tool ("Allow read_file"): a list of "Allowed" switches read
// alike to anyone who cannot see which row each sits in. A tool held for review is neither
// shown nor counted as allowed: the code cannot call it until its change is accepted.
import { useEffect, useId, useState } from "react";
import type { ApiError } from "../../../../shared/api/api-contract.js";
import type { LeftOutCode, ServerView, ToolView } from "../../../../shared/api/api-views.js";
import { visibleText } from "../../../../shared/hidden-chars.js";
import { useApi } from "../../api/hooks.js";
import { Badge } from "../../components/badge.js";
import { Switch } from "../../components/switch.js";
import { EmptyState, ErrorState, Loading } from "../../components/states.js";
import { useToolList } from "./use-tool-list.js";

/** A short label per reason; the full text for this tool is shown under its name. */
const LEFT_OUT_LABELS: Record<LeftOutCode, string> = {
  not_allowed: "Not allowed",
  schema_unusable: "Left out: schema",
  name_too_long: "Left out: name too long",
  name_hidden_chars: "Left out: hidden characters in name",
  not_pinned: "Left out: not pinned",
  not_in_catalog: "Not available",
  held_for_review: "Held for review",
};

/**
 * Saving a server no longer waits for its start, so its page can say Starting for as long as
 * a first download takes (up to the start timeout): say why, as the form's Try does.
 */
function notStartedText(server: ServerView): string {
  if (server.status === "starting" || server.restarting) {
    return "Tools appear here once the server has started. A first start may download it, which can take a minute.";
  }
  // Whether the host answered with no tools or with an error, a failed server says what to do.
  if (server.status === "failed") {
    return "Tools appear here once the server starts. Fix the problem above, then choose Restart.";
  }
  return "Tools appear here once the server has started.";
}

export function ToolList(props: { server: ServerView }) {
  const { server } = props;
  const tools = useToolList(server.name);
  const [filter, setFilter] = useState("");
  const filterId = useId();
  const reload = tools.reload;

  // The host's list changes when the server (re)starts, and when a listing holds a tool for
  // review or a review admits one (the count of tools stays): ask again then.
  useEffect(() => {
    reload();
  }, [server.status, server.toolCount, server.held, reload]);

  const api = useApi();
  const [pending, setPending] = useState<Record<string, boolean>>({});
  const [errors, setErrors] = useState<Record<string, ApiError>>({});

  const [askBusy, setAskBusy] = useState(false);
  const [askError, setAskError] = useState<ApiError | null>(null);
  const setAskAll = async (ask: boolean) => {
    setAskBusy(true);
    const response = await api.request("servers.setAsk", { name: server.name, ask });
    setAskBusy(false);
    setAskError(response.ok ? null : response.error);
    reload();
  };

  const setPolicy = async (tool: ToolView, patch: ToolPatch) => {
    const current = tools.data ?? [];
    tools.setData(current.map((t) => (t.name === tool.name ? { ...t, ...patch } : t)));
    setPending((p) => ({ ...p, [tool.name]: true }));
    const response = await api.request("servers.setToolPolicy", {
      name: server.name,
      tool: tool.name,
      ...patch,
    });
    setPending((p) => ({ ...p, [tool.name]: false }));
    if (response.ok) {
      // Only this tool's view comes back; other switches may have moved meanwhile.
      const now = response.value;
      if (now) tools.setData((list) => list.map((t) => (t.name === tool.name ? now : t)));
      setErrors(({ [tool.name]: _, ...rest }) => rest);
    } else {
      tools.setData(current);
      setErrors((e) => ({ ...e, [tool.name]: response.error }));
    }
  };

  if (!tools.data) {
    if (tools.error && server.status !== "ready") {
      return <EmptyState title="No tools yet">{notStartedText(server)}</EmptyState>;
    }
    if (tools.error) {
      return (
        <ErrorState error={tools.error} onRetry={tools.reload} title="Could not list the tools" />
      );
    }
    return <Loading label="Listing tools…" />;
  }
  if (tools.data.length === 0) {
    return (
      <EmptyState
        title={server.status === "ready" ? "This server offers no tools" : "No tools yet"}
      >
        {server.status === "ready"
          ? "The server started but did not list any tools."
          : notStartedText(server)}
      </EmptyState>
    );
  }

  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? tools.data.filter(
        (t) =>
          t.name.toLowerCase().includes(needle) ||
          (t.pyName ?? "").toLowerCase().includes(needle) ||
          t.description.toLowerCase().includes(needle),
      )
    : tools.data;
  const heldCount = tools.data.filter(isHeld).length;
  const allowedCount = tools.data.filter((t) => t.allowed && !isHeld(t)).length;
  const privateCount = tools.data.filter((t) => t.private).length;
  const askCount = tools.data.filter((t) => t.ask).length;

  return (
    <div className="tools">
      <div className="tools-toolbar">
        <p className="muted small">
          {allowedCount} of {tools.data.length} allowed
          {heldCount > 0 ? ` · ${heldCount} held for review` : ""}
          {privateCount > 0 ? ` · ${privateCount} private` : ""}
          {askCount > 0 ? ` · ${askCount} ask first` : ""}
        </p>
        <button
          type="button"
          className="button button-small"
          disabled={askBusy}
          onClick={() => void setAskAll(server.ask !== true)}
        >
          {server.ask === true ? "Stop asking for every tool" : "Ask first for every tool"}
        </button>
        {tools.data.length > 6 ? (
          <div className="inline-field">
            <label htmlFor={filterId} className="visually-hidden">
              Find a tool
            </label>
            <input
              id={filterId}
              type="search"
              className="input input-small"
              placeholder="Find a tool"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
          </div>
        ) : null}
      </div>
      {askError ? <div className="field-error">{askError.message}</div> : null}
      {tools.error ? <ErrorState error={tools.error} onRetry={tools.reload} compact /> : null}
      <ul className="tool-list" aria-label={`Tools of ${server.name}`}>
        {shown.map((tool) => (
          <ToolItem
            key={tool.name}
            tool={tool}
            busy={pending[tool.name] ?? false}
            error={errors[tool.name] ?? null}
            onChange={(patch) => void setPolicy(tool, patch)}
          />
        ))}
      </ul>
      {shown.length === 0 ? <p className="muted">No tool matches “{filter}”.</p> : null}
    </div>
  );
}

type ToolPatch = { allowed?: boolean; private?: boolean; ask?: boolean; hideArgs?: boolean };

/** Held for the user's review: out of the catalog whatever its allow list says. */
function isHeld(tool: ToolView): boolean {
  return tool.leftOut?.code === "held_for_review";
}

function ToolItem(props: {
  tool: ToolView;
  busy: boolean;
  error: ApiError | null;
  onChange: (patch: ToolPatch) => void;
}) {
  const { tool } = props;
  const nameId = useId();
  const [expanded, setExpanded] = useState(false);
  const long = tool.description.length > 220;
  const held = isHeld(tool);
  // The name as shown: hidden characters escaped, so the switch's name reads like its heading.
  const name = visibleText(tool.name);
  return (
    <li className={`tool${tool.allowed && !held ? "" : " is-off"}`} aria-labelledby={nameId}>
      <div className="tool-main">
        <div className="tool-head">
          <h4 id={nameId} className="tool-name">
            {visibleText(tool.name)}
          </h4>
          {tool.pyName && tool.pyName !== tool.name ? (
            <code className="tool-pyname" title="The name the code calls">
              {tool.pyName}
            </code>
          ) : null}
          {tool.private ? <Badge tone="private">Private</Badge> : null}
          {tool.ask && tool.allowed && !held ? <Badge tone="warn">Ask first</Badge> : null}
          {tool.leftOut ? <Badge tone="neutral">{LEFT_OUT_LABELS[tool.leftOut.code]}</Badge> : null}
        </div>
        {tool.leftOut && tool.leftOut.code !== "not_allowed" ? (
          <p className="tool-left-out muted">Not callable: {tool.leftOut.text}.</p>
        ) : null}
        {tool.description ? (
          <p className={`tool-description${long && !expanded ? " is-clamped" : ""}`}>
            {visibleText(tool.description, { multiline: true })}
          </p>
        ) : (
          <p className="tool-description muted">No description.</p>
        )}
        <div className="tool-links">
          {long ? (
            <button
              type="button"
              className="link-button"
              aria-expanded={expanded}
              onClick={() => setExpanded((e) => !e)}
            >
              {expanded ? "Show less" : "Show full description"}
            </button>
          ) : null}
          <details className="schema">
            <summary>Input schema</summary>
            <pre className="code-block" tabIndex={0}>
              {visibleText(JSON.stringify(tool.inputSchema, null, 2), { multiline: true })}
            </pre>
          </details>
        </div>
        {props.error ? <div className="field-error">{props.error.message}</div> : null}
      </div>
      <div className="tool-switches">
        <Switch
          label={held ? "Held for review" : "Allowed"}
          name={`Allow ${name}`}
          checked={tool.allowed && !held}
          disabled={props.busy || held}
          description={
            held
              ? "Held for review: accept its change under Changes to review before the code can call it."
              : "The code may call this tool."
          }
          onChange={(allowed) => props.onChange({ allowed })}
        />
        <Switch
          label="Ask first"
          name={`Ask first before ${name}`}
          checked={tool.ask}
          disabled={props.busy || !tool.allowed}
          description="Each call waits until you allow it (once, or for the rest of the run)."
          onChange={(ask) => props.onChange({ ask })}
        />
        <Switch
          label="Private"
          name={`${name} is private`}
          checked={tool.private}
          disabled={props.busy}
          description="Its results are private: after a call, that client may only call private tools until you reset it."
          onChange={(value) => props.onChange({ private: value })}
        />
        <Switch
          label="Hide arguments"
          name={`Hide the arguments of ${name} in the audit log`}
          checked={tool.hideArgs}
          disabled={props.busy}
          description="The audit log shows which file, query or page each call asked for. Hide them for a tool whose arguments are private themselves, like a message's text."
          onChange={(hideArgs) => props.onChange({ hideArgs })}
        />
      </div>
    </li>
  );
}

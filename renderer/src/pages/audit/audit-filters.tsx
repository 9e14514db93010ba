// The filter fields of the audit view. Text fields settle for a moment before they apply.
import { memo, useEffect, useId, useState } from "react";
import type { AuditFilter } from "../../../../shared/api/api-contract.js";
import { FieldShell, SelectField } from "../../components/field.js";
import { KINDS, kindLabel } from "../../lib/audit.js";
import { localInputToIso } from "../../lib/format.js";

export interface FilterFields {
  client: string;
  server: string;
  tool: string;
  decision: string;
  kind: string;
  from: string;
  to: string;
  text: string;
}

export const EMPTY_FILTERS: FilterFields = {
  client: "",
  server: "",
  tool: "",
  decision: "",
  kind: "",
  from: "",
  to: "",
  text: "",
};

export function toAuditFilter(fields: FilterFields, runId: string | null): AuditFilter {
  const filter: AuditFilter = {};
  if (fields.client.trim()) filter.client = fields.client.trim();
  if (fields.server.trim()) filter.server = fields.server.trim();
  if (fields.tool.trim()) filter.tool = fields.tool.trim();
  if (
    fields.decision === "allowed" ||
    fields.decision === "refused" ||
    fields.decision === "failed"
  ) {
    filter.decision = fields.decision;
  }
  if (fields.kind === "runs") filter.kinds = ["run_started", "run_finished", "call"];
  else if (fields.kind) filter.kinds = [fields.kind];
  const from = localInputToIso(fields.from);
  const to = localInputToIso(fields.to);
  if (from) filter.from = from;
  if (to) filter.to = to;
  if (fields.text.trim()) filter.text = fields.text.trim().slice(0, 1000);
  if (runId) filter.runId = runId;
  return filter;
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export const AuditFilters = memo(function AuditFilters(props: {
  onChange: (fields: FilterFields) => void;
  suggestions: { clients: string[]; servers: string[] };
  runId: string | null;
  onClearRun: () => void;
}) {
  const [fields, setFields] = useState<FilterFields>(EMPTY_FILTERS);
  const settled = useDebounced(fields, 300);
  const { onChange } = props;
  useEffect(() => {
    onChange(settled);
  }, [settled, onChange]);
  const listId = useId();
  const set = (key: keyof FilterFields) => (value: string) =>
    setFields((f) => ({ ...f, [key]: value }));
  const any = Object.values(fields).some((v) => v !== "") || props.runId !== null;

  const text = (key: "client" | "server" | "tool", label: string, list?: string[]) => (
    <FieldShell label={label} className="filter-field">
      {({ id, describedBy }) => (
        <>
          <input
            id={id}
            className="input input-small"
            value={fields[key]}
            list={list ? `${listId}-${key}` : undefined}
            aria-describedby={describedBy}
            autoComplete="off"
            spellCheck={false}
            placeholder="Any"
            onChange={(e) => set(key)(e.target.value)}
          />
          {list ? (
            <datalist id={`${listId}-${key}`}>
              {list.map((v) => (
                <option key={v} value={v} />
              ))}
            </datalist>
          ) : null}
        </>
      )}
    </FieldShell>
  );

  return (
    <form
      className="filters"
      aria-label="Filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(fields);
      }}
    >
      <div className="filters-grid">
        <FieldShell label="Search" className="filter-field filter-search">
          {({ id }) => (
            <input
              id={id}
              type="search"
              className="input input-small"
              value={fields.text}
              placeholder="Any text"
              onChange={(e) => set("text")(e.target.value)}
            />
          )}
        </FieldShell>
        {text("client", "Client", props.suggestions.clients)}
        {text("server", "Server", props.suggestions.servers)}
        {text("tool", "Tool")}
        <SelectField
          label="Decision"
          value={fields.decision}
          onChange={set("decision")}
          fieldClassName="filter-field"
          options={[
            { value: "", label: "Any" },
            { value: "allowed", label: "Allowed" },
            { value: "refused", label: "Refused" },
            { value: "failed", label: "Failed" },
          ]}
        />
        <SelectField
          label="Kind"
          value={fields.kind}
          onChange={set("kind")}
          fieldClassName="filter-field"
          options={[
            { value: "", label: "Any" },
            { value: "runs", label: "Runs and calls" },
            ...KINDS.map((kind) => ({ value: kind, label: kindLabel(kind) })),
          ]}
        />
        <FieldShell label="From" className="filter-field">
          {({ id }) => (
            <input
              id={id}
              type="datetime-local"
              className="input input-small"
              value={fields.from}
              onChange={(e) => set("from")(e.target.value)}
            />
          )}
        </FieldShell>
        <FieldShell label="To" className="filter-field">
          {({ id }) => (
            <input
              id={id}
              type="datetime-local"
              className="input input-small"
              value={fields.to}
              onChange={(e) => set("to")(e.target.value)}
            />
          )}
        </FieldShell>
      </div>
      {any ? (
        <div className="filters-active">
          {props.runId ? (
            <span className="chip">
              Run <code>{props.runId.slice(0, 12)}</code>
              <button
                type="button"
                className="chip-remove"
                aria-label="Stop showing only this run"
                onClick={props.onClearRun}
              >
                <span aria-hidden="true">✕</span>
              </button>
            </span>
          ) : null}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setFields(EMPTY_FILTERS);
              onChange(EMPTY_FILTERS);
              if (props.runId) props.onClearRun();
            }}
          >
            Clear filters
          </button>
        </div>
      ) : null}
    </form>
  );
});

// Adding several servers at once: from a pasted mcpServers snippet, or from Claude Desktop.
import { useId, useState } from "react";
import type { ApiError } from "../../../../shared/api/api-contract.js";
import type { ServerPage, ServerView } from "../../../../shared/api/api-views.js";
import { sameList } from "../../../../shared/same-list.js";
import { mapFieldErrors } from "../../api/field-errors.js";
import { useApi, useMutation, useRequest } from "../../api/hooks.js";
import { Badge } from "../../components/badge.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { TextAreaField } from "../../components/field.js";
import { ErrorState, Loading } from "../../components/states.js";
import { useAppState } from "../../state/app-state.js";
import { commandLine, type ServerEntryInput } from "./server-entry.js";

type Candidates = Record<string, ServerEntryInput>;

/** Upserts the chosen servers one by one; returns the errors of those that failed. */
function useAddMany(onAllAdded: (servers: ServerPage) => void) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, ApiError>>({});
  const [added, setAdded] = useState<string[]>([]);
  const run = async (entries: [string, ServerEntryInput][]) => {
    setBusy(true);
    const failed: Record<string, ApiError> = {};
    const ok: string[] = [];
    let last: ServerPage | null = null;
    for (const [name, entry] of entries) {
      const response = await api.request("servers.upsert", { name, entry });
      if (response.ok) {
        ok.push(name);
        last = response.value;
      } else {
        failed[name] = response.error;
      }
    }
    setBusy(false);
    setErrors(failed);
    setAdded((a) => [...a, ...ok]);
    if (Object.keys(failed).length === 0 && last) onAllAdded(last);
  };
  return { run, busy, errors, added };
}

function CandidateList(props: {
  candidates: Candidates;
  existing: Set<string>;
  selected: Set<string>;
  onToggle: (name: string, on: boolean) => void;
  errors: Record<string, ApiError>;
  added: string[];
  /** Entries that must not be imported, with why. */
  blocked?: Record<string, string>;
}) {
  const names = Object.keys(props.candidates);
  return (
    <ul className="candidate-list" aria-label="Servers found">
      {names.map((name) => {
        const entry = props.candidates[name]!;
        const error = props.errors[name];
        const blocked = props.blocked?.[name];
        const isAdded = props.added.includes(name);
        const envNames = Object.keys(entry.env ?? {});
        const fieldMessages = error ? mapFieldErrors(error, () => null).rest : [];
        return (
          <li key={name} className={`candidate${error ? " has-error" : ""}`}>
            <label className="candidate-check">
              <input
                type="checkbox"
                checked={props.selected.has(name) && !blocked && !isAdded}
                disabled={Boolean(blocked) || isAdded}
                onChange={(e) => props.onToggle(name, e.target.checked)}
              />
              <span className="candidate-name">{name}</span>
            </label>
            <div className="candidate-body">
              <code className="candidate-command">{commandLine(entry.command, entry.args)}</code>
              {envNames.length > 0 ? (
                <div className="muted small">Environment: {envNames.join(", ")}</div>
              ) : null}
              <div className="candidate-badges">
                {isAdded ? <Badge tone="ok">Added</Badge> : null}
                {blocked ? <Badge tone="neutral">{blocked}</Badge> : null}
                {!blocked && !isAdded && props.existing.has(name) ? (
                  <Badge tone="warn">Replaces the server with this name</Badge>
                ) : null}
              </div>
              {error ? (
                <div className="field-error" role="alert">
                  {fieldMessages.length > 1 ? (
                    <ul>
                      {fieldMessages.map((m) => (
                        <li key={m}>{m}</li>
                      ))}
                    </ul>
                  ) : (
                    (fieldMessages[0] ?? error.message)
                  )}
                </div>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The candidates that are Code Mode's own shim entry, with why they cannot be added: Code Mode
 * must not wrap itself. Claude Desktop's config holds that entry once Code Mode is set up there,
 * and the Clients page hands out the same JSON a user may paste here.
 */
function useCodeModeItself(candidates: Candidates): Record<string, string> {
  const { info } = useAppState();
  const blocked: Record<string, string> = {};
  const shim = info.data?.shimCommand;
  for (const [name, entry] of Object.entries(candidates)) {
    if (shim && entry.command === shim.command && sameList(entry.args ?? [], shim.args)) {
      blocked[name] = "This is Code Mode itself";
    }
  }
  return blocked;
}

export function PasteJsonDialog(props: {
  existing: ServerView[];
  onClose: () => void;
  onAdded: (servers: ServerPage) => void;
}) {
  const [text, setText] = useState("");
  const [candidates, setCandidates] = useState<Candidates | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const parse = useMutation("config.parseSnippet");
  const addMany = useAddMany(props.onAdded);
  const existing = new Set(props.existing.map((s) => s.name));
  const formId = useId();
  const blocked = useCodeModeItself(candidates ?? {});

  const parseErrors = mapFieldErrors(parse.error, () => null);
  const textError = parse.error
    ? parseErrors.rest.length > 0
      ? parseErrors.rest.join("\n")
      : parse.error.message
    : null;

  const preview = async () => {
    const response = await parse.run({ text });
    if (response.ok) {
      setCandidates(response.value.servers);
      setSelected(new Set(Object.keys(response.value.servers)));
    }
  };

  const chosen = candidates
    ? Object.entries(candidates).filter(
        ([name]) => selected.has(name) && !blocked[name] && !addMany.added.includes(name),
      )
    : [];

  return (
    <Dialog
      wide
      title="Paste JSON"
      description="Paste the mcpServers JSON from a server's instructions. You will see what it adds before anything is saved."
      onClose={props.onClose}
      actions={
        candidates === null ? (
          <DialogFooter
            onCancel={props.onClose}
            confirmLabel="Preview"
            busyLabel="Checking…"
            busy={parse.busy}
            disabled={!text.trim()}
            submitForm={formId}
          />
        ) : (
          <DialogFooter
            onCancel={() => setCandidates(null)}
            cancelLabel="Back"
            confirmLabel="Add these servers"
            busyLabel="Adding…"
            busy={addMany.busy}
            disabled={chosen.length === 0}
            onConfirm={() => void addMany.run(chosen)}
          />
        )
      }
    >
      {candidates === null ? (
        <form
          id={formId}
          onSubmit={(e) => {
            e.preventDefault();
            void preview();
          }}
        >
          <TextAreaField
            label="Snippet"
            value={text}
            onChange={(value) => {
              setText(value);
              parse.clearError();
            }}
            error={textError}
            rows={12}
            spellCheck={false}
            autoFocus
            className="input textarea input-mono"
            placeholder={
              '{\n  "mcpServers": {\n    "files": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path"]\n    }\n  }\n}'
            }
          />
        </form>
      ) : Object.keys(candidates).length === 0 ? (
        <p>That snippet has no servers in it.</p>
      ) : (
        <>
          <p>
            {Object.keys(candidates).every((name) => blocked[name])
              ? "Nothing here can be added:"
              : Object.keys(candidates).length === 1
                ? "This server will be added:"
                : "These servers will be added. Untick any you do not want."}
          </p>
          <CandidateList
            candidates={candidates}
            existing={existing}
            selected={selected}
            onToggle={(name, on) =>
              setSelected((s) => {
                const next = new Set(s);
                if (on) next.add(name);
                else next.delete(name);
                return next;
              })
            }
            errors={addMany.errors}
            added={addMany.added}
            blocked={blocked}
          />
        </>
      )}
    </Dialog>
  );
}

export function ImportClaudeDialog(props: {
  existing: ServerView[];
  onClose: () => void;
  onAdded: (servers: ServerPage) => void;
}) {
  const found = useRequest("config.claudeDesktopServers", {});
  const [selected, setSelected] = useState<Set<string> | null>(null);
  const addMany = useAddMany(props.onAdded);
  const existing = new Set(props.existing.map((s) => s.name));

  const candidates = found.data?.servers ?? {};
  const blocked = useCodeModeItself(candidates);
  // Servers whose name is already taken start unticked: importing them replaces what is there.
  const effective =
    selected ??
    new Set(Object.keys(candidates).filter((name) => !blocked[name] && !existing.has(name)));
  const chosen = Object.entries(candidates).filter(
    ([name]) => effective.has(name) && !blocked[name] && !addMany.added.includes(name),
  );

  return (
    <Dialog
      wide
      title="Import from Claude Desktop"
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          confirmLabel="Import selected"
          busyLabel="Importing…"
          busy={addMany.busy}
          disabled={chosen.length === 0}
          onConfirm={() => void addMany.run(chosen)}
        />
      }
    >
      {found.loading && !found.data ? <Loading label="Reading Claude Desktop's settings…" /> : null}
      {found.error ? (
        <ErrorState
          error={found.error}
          onRetry={found.reload}
          title="Could not read Claude Desktop's settings"
        />
      ) : null}
      {found.data ? (
        Object.keys(candidates).length === 0 ? (
          <p>
            Claude Desktop has no MCP servers set up in <code>{found.data.path}</code>.
          </p>
        ) : (
          <>
            <p>
              Found in <code className="wrap-anywhere">{found.data.path}</code>. Choose the servers
              to wrap with Code Mode. Claude Desktop&rsquo;s own settings are not changed.
            </p>
            <CandidateList
              candidates={candidates}
              existing={existing}
              selected={effective}
              blocked={blocked}
              onToggle={(name, on) => {
                const next = new Set(effective);
                if (on) next.add(name);
                else next.delete(name);
                setSelected(next);
              }}
              errors={addMany.errors}
              added={addMany.added}
            />
          </>
        )
      ) : null}
    </Dialog>
  );
}

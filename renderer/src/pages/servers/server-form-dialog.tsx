// Add or edit one server: name, command, arguments, environment variables.
import { useId, useState, type FormEvent } from "react";
import type { ApiError } from "../../../../shared/api/api-contract.js";
import type { ServerPage, ServerView, TryServerView } from "../../../../shared/api/api-views.js";
import { mapFieldErrors, serverEntryPath } from "../../api/field-errors.js";
import { useMutation } from "../../api/hooks.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { TextAreaField, TextField } from "../../components/field.js";
import { Switch } from "../../components/switch.js";
import {
  emptyForm,
  entryFromForm,
  formFromServer,
  newEnvRow,
  serverNameProblem,
  SHORT_SECRET_TEXT,
  shortSecret,
  type EnvRow,
  type ServerFormState,
} from "./server-entry.js";
import { TryButton, TryResult } from "./try-result.js";

/** Which form field a host error path is about. */
function serverFieldKey(path: string[]): string | null {
  const fromConfig = path[0] === "mcpServers";
  const p = serverEntryPath(path);
  if (p.length === 0) return fromConfig ? "name" : null;
  switch (p[0]) {
    case "name":
    case "previousName":
      return "name";
    case "command":
    case "type":
      return "command";
    case "args":
      return "args";
    case "env":
    case "secret":
      return p[1] !== undefined && p[0] === "env" ? `env.${p[1]}` : "env";
    default:
      return null;
  }
}

export function ServerFormDialog(props: {
  /** The server being edited; null to add one. */
  server: ServerView | null;
  onClose: () => void;
  onSaved: (servers: ServerPage, name: string) => void;
}) {
  const { server } = props;
  const [form, setForm] = useState<ServerFormState>(() =>
    server ? formFromServer(server) : emptyForm(),
  );
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const upsert = useMutation("servers.upsert");
  const tryIt = useMutation("servers.try");
  const [tried, setTried] = useState<TryServerView | null>(null);
  const [confirmFailed, setConfirmFailed] = useState(false);
  const formId = useId();

  const hostErrors = mapFieldErrors(upsert.error, serverFieldKey);
  const errorFor = (key: string): string | null =>
    localErrors[key] ?? hostErrors.byField[key] ?? null;

  // Env errors naming a variable that has no row go on the group.
  const rowNames = new Set(form.env.map((r) => r.name.trim()));
  const envGroupErrors = Object.entries(hostErrors.byField)
    .filter(([key]) => key === "env" || (key.startsWith("env.") && !rowNames.has(key.slice(4))))
    .map(([key, message]) => (key === "env" ? message : `${key.slice(4)}: ${message}`));

  const update = (patch: Partial<ServerFormState>) => {
    setForm((f) => ({ ...f, ...patch }));
    setLocalErrors({});
    // The host's errors were about what was sent; once the user edits, they no longer apply.
    upsert.clearError();
    // So was a try: it answers for what was tried.
    tryIt.clearError();
    setTried(null);
    setConfirmFailed(false);
  };
  const updateRow = (key: number, patch: Partial<EnvRow>) =>
    update({ env: form.env.map((row) => (row.key === key ? { ...row, ...patch } : row)) });

  /** Shows what is missing in the form; true when it can be sent. */
  const check = (): boolean => {
    const errors: Record<string, string> = {};
    const nameProblem = serverNameProblem(form.name);
    if (nameProblem) errors.name = nameProblem;
    if (!form.command.trim()) errors.command = "Say which program starts the server.";
    const seen = new Set<string>();
    for (const row of form.env) {
      const name = row.name.trim();
      if (!name && row.value) errors[`env.row.${row.key}`] = "This variable needs a name.";
      if (name && seen.has(name)) errors[`env.row.${row.key}`] = "This name is used twice.";
      seen.add(name);
    }
    setLocalErrors(errors);
    return Object.keys(errors).length === 0;
  };

  const onTry = async () => {
    if (!check()) return;
    setTried(null);
    const response = await tryIt.run({
      name: form.name.trim(),
      ...(server ? { previousName: server.name } : {}),
      entry: entryFromForm(form, server),
    });
    setTried(response.ok ? response.value : null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!check()) return;
    // A server whose try failed is saved only once the user says so.
    if (tried && !tried.ok && !confirmFailed) {
      setConfirmFailed(true);
      return;
    }
    const name = form.name.trim();
    const response = await upsert.run({
      name,
      // Adding never replaces a server that already has this name.
      ...(server ? { previousName: server.name } : { addOnly: true }),
      entry: entryFromForm(form, server),
    });
    if (response.ok) props.onSaved(response.value, name);
  };

  return (
    <Dialog
      wide
      title={server ? `Edit ${server.name}` : "Add server"}
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          confirmLabel={confirmFailed ? "Save anyway" : "Save"}
          busyLabel="Saving…"
          busy={upsert.busy}
          submitForm={formId}
        >
          <TryButton busy={tryIt.busy} onTry={() => void onTry()} />
        </DialogFooter>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        {hostErrors.rest.length > 0 || (upsert.error && !upsert.error.fields?.length) ? (
          <FormProblems error={upsert.error} rest={hostErrors.rest} />
        ) : null}
        <TextField
          label="Name"
          value={form.name}
          onChange={(name) => update({ name })}
          error={errorFor("name")}
          hint="A short name for this server, like “files” or “calendar”. The code uses it to tell servers apart."
          autoComplete="off"
          spellCheck={false}
          autoFocus
          required
        />
        <TextField
          label="Command"
          value={form.command}
          onChange={(command) => update({ command })}
          error={errorFor("command")}
          hint={
            <>
              The program that starts the server, e.g. <code>npx</code>, <code>uvx</code> or a full
              path.
            </>
          }
          autoComplete="off"
          spellCheck={false}
          className="input input-mono"
          required
        />
        <TextAreaField
          label="Arguments"
          value={form.args}
          onChange={(args) => update({ args })}
          error={errorFor("args")}
          hint="One per line, in order. Leave empty if there are none."
          rows={4}
          spellCheck={false}
          className="input textarea input-mono"
        />
        <EnvEditor
          rows={form.env}
          onAdd={() => update({ env: [...form.env, newEnvRow()] })}
          onRemove={(key) => update({ env: form.env.filter((r) => r.key !== key) })}
          onChange={updateRow}
          errorForRow={(row) =>
            localErrors[`env.row.${row.key}`] ??
            (row.name.trim() ? (hostErrors.byField[`env.${row.name.trim()}`] ?? null) : null)
          }
          groupErrors={envGroupErrors}
        />
        <TryResult busy={tryIt.busy} error={tryIt.error} result={tried} />
        {confirmFailed ? (
          <div className="callout callout-warn callout-compact" role="alert">
            <div className="callout-text">
              This server did not start when you tried it. Save it anyway? Its page will show why it
              fails.
            </div>
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}

function FormProblems(props: { error: ApiError | null; rest: string[] }) {
  return (
    <div className="callout callout-bad callout-compact" role="alert">
      <div className="callout-text">
        <strong>Not saved.</strong>
        {props.rest.length === 1 ? (
          <p>{props.rest[0]}</p>
        ) : (
          <ul>
            {props.rest.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function EnvEditor(props: {
  rows: EnvRow[];
  onAdd: () => void;
  onRemove: (key: number) => void;
  onChange: (key: number, patch: Partial<EnvRow>) => void;
  errorForRow: (row: EnvRow) => string | null;
  groupErrors: string[];
}) {
  const legendId = useId();
  const hintId = useId();
  return (
    <fieldset className="fieldset" aria-labelledby={legendId} aria-describedby={hintId}>
      <legend id={legendId} className="field-label">
        Environment
      </legend>
      <p id={hintId} className="field-hint">
        Variables the server needs, such as an API key. Mark keys and passwords as secret: their
        values are stored protected and never shown in full again.
      </p>
      {props.rows.length > 0 ? (
        <ul className="env-rows">
          {props.rows.map((row, index) => {
            const n = index + 1;
            const error = props.errorForRow(row);
            return (
              <li key={row.key} className={`env-row${error ? " has-error" : ""}`}>
                <input
                  className="input input-mono"
                  aria-label={`Variable ${n}`}
                  placeholder="VARIABLE"
                  value={row.name}
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={error ? true : undefined}
                  onChange={(e) => props.onChange(row.key, { name: e.target.value })}
                />
                <span className="env-eq" aria-hidden="true">
                  =
                </span>
                <input
                  className="input input-mono"
                  aria-label={`Value ${n}`}
                  placeholder={row.secret ? "secret value" : "value"}
                  type={row.secret ? "password" : "text"}
                  value={row.value}
                  spellCheck={false}
                  autoComplete={row.secret ? "new-password" : "off"}
                  onFocus={(e) => {
                    // An unchanged secret shows the host's mask; typing replaces it entirely.
                    if (row.storedSecret !== null) e.target.select();
                  }}
                  onChange={(e) =>
                    props.onChange(row.key, { value: e.target.value, storedSecret: null })
                  }
                />
                <Switch
                  label="Secret"
                  name={`Keep row ${n} secret`}
                  checked={row.secret}
                  onChange={(secret) =>
                    // A saved secret made plain must be typed again: it is never shown in full.
                    props.onChange(
                      row.key,
                      row.storedSecret !== null && !secret
                        ? { secret, storedSecret: null, value: "" }
                        : { secret },
                    )
                  }
                />
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Delete row ${n}`}
                  title="Delete this variable"
                  onClick={() => props.onRemove(row.key)}
                >
                  <span aria-hidden="true">✕</span>
                </button>
                {error ? <div className="field-error env-error">{error}</div> : null}
                {row.secret && row.storedSecret === null && shortSecret(row.value) ? (
                  <div className="field-warning env-note" role="status">
                    {SHORT_SECRET_TEXT}
                  </div>
                ) : null}
                {row.storedSecret !== null ? (
                  <div className="field-hint env-note">
                    Saved secret: type a new value to replace it.
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {props.groupErrors.map((message) => (
        <div key={message} className="field-error">
          {message}
        </div>
      ))}
      <button type="button" className="button button-small" onClick={props.onAdd}>
        Add variable
      </button>
    </fieldset>
  );
}

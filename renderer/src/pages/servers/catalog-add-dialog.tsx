// Adding one catalog server: a short form with only what that server needs, "Try it", and
// Add. A server whose try failed is added only after the user says so.
import { useId, useState, type FormEvent } from "react";
import type { ServerPage, ServerView } from "../../../../shared/api/api-views.js";
import type {
  CatalogEntry,
  CatalogSetting,
} from "../../../../shared/server-catalog/catalog-schema.js";
import {
  buildEntry,
  suggestedServerName,
} from "../../../../shared/server-catalog/server-catalog.js";
import { useMutation } from "../../api/hooks.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { TextAreaField, TextField } from "../../components/field.js";
import { PickPathButton, withPickedPath } from "../../components/pick-path-button.js";
import { serverNameProblem, SHORT_SECRET_TEXT, shortSecret } from "./server-entry.js";
import { TryButton, TryResult } from "./try-result.js";

type Values = Record<string, string>;

/** A setting that takes several values is one text area, one value per line. */
function valuesFor(entry: CatalogEntry, form: Values): Record<string, string | string[]> {
  return Object.fromEntries(
    entry.settings.map((s) => [
      s.key,
      s.multiple ? (form[s.key] ?? "").split(/\r?\n/) : (form[s.key] ?? ""),
    ]),
  );
}

function SettingField(props: {
  setting: CatalogSetting;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
}) {
  const { setting } = props;
  const short = setting.kind === "secret" && shortSecret(props.value);
  const common = {
    label: setting.label,
    value: props.value,
    onChange: props.onChange,
    error: props.error,
    hint: short ? (
      <>
        {setting.help} <span className="field-warning">{SHORT_SECRET_TEXT}</span>
      </>
    ) : setting.multiple ? (
      `${setting.help} One per line.`
    ) : (
      setting.help
    ),
    aside: setting.required ? undefined : "optional",
    placeholder: setting.placeholder,
    spellCheck: false,
  };
  const field = setting.multiple ? (
    <TextAreaField {...common} rows={3} className="input textarea input-mono" />
  ) : (
    <TextField
      {...common}
      type={setting.kind === "secret" ? "password" : "text"}
      autoComplete={setting.kind === "secret" ? "new-password" : "off"}
      className={setting.kind === "secret" ? "input" : "input input-mono"}
    />
  );
  if (setting.kind !== "folder" && setting.kind !== "file") return field;
  return (
    <div className="field-with-picker">
      {field}
      <PickPathButton
        kind={setting.kind}
        label={setting.label}
        onPick={(path) =>
          props.onChange(withPickedPath(props.value, path, setting.multiple === true))
        }
      />
    </div>
  );
}

export function CatalogAddDialog(props: {
  entry: CatalogEntry;
  existing: ServerView[];
  onBack: () => void;
  onClose: () => void;
  onAdded: (servers: ServerPage, name: string) => void;
}) {
  const { entry } = props;
  const formId = useId();
  const [name, setName] = useState(() =>
    suggestedServerName(entry, new Set(props.existing.map((s) => s.name))),
  );
  const [form, setForm] = useState<Values>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [confirmFailed, setConfirmFailed] = useState(false);
  const upsert = useMutation("servers.upsert");
  const tryIt = useMutation("servers.try");
  const [tried, setTried] = useState<Awaited<ReturnType<typeof tryIt.run>> | null>(null);

  const change = (patch: Partial<{ name: string; form: Values }>) => {
    if (patch.name !== undefined) setName(patch.name);
    if (patch.form) setForm(patch.form);
    setProblems({});
    setConfirmFailed(false);
    // A try answers for what was tried; after an edit it no longer applies.
    setTried(null);
    upsert.clearError();
    tryIt.clearError();
  };

  /** The entry to try or save, or null after showing what is missing. */
  const built = () => {
    const result = buildEntry(entry, valuesFor(entry, form));
    const errors: Record<string, string> = {};
    const nameProblem = serverNameProblem(name);
    if (nameProblem) errors.name = nameProblem;
    if (!result.ok) for (const p of result.problems) errors[p.key || "name"] = p.message;
    setProblems(errors);
    return result.ok && Object.keys(errors).length === 0 ? result.entry : null;
  };

  const onTry = async () => {
    const entryToTry = built();
    if (!entryToTry) return;
    setTried(null);
    setTried(await tryIt.run({ name: name.trim(), entry: entryToTry }));
  };

  const failedTry = tried?.ok === true && !tried.value.ok;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const entryToSave = built();
    if (!entryToSave) return;
    if (failedTry && !confirmFailed) {
      setConfirmFailed(true);
      return;
    }
    // Adding never replaces a server that already has this name.
    const response = await upsert.run({ name: name.trim(), entry: entryToSave, addOnly: true });
    if (response.ok) props.onAdded(response.value, name.trim());
  };

  // A taken or badly formed name goes on the Name field (the config check names the server's
  // path, mcpServers.<name>); anything else at the top of the form.
  const nameError =
    upsert.error?.fields?.find(
      (f) => f.path[0] === "name" || (f.path[0] === "mcpServers" && f.path.length === 2),
    )?.message ?? null;
  const hostError = nameError === null ? (upsert.error?.message ?? null) : null;
  return (
    <Dialog
      wide
      title={`Add ${entry.name}`}
      onClose={props.onClose}
      description={entry.description}
      actions={
        <DialogFooter
          onCancel={props.onBack}
          cancelLabel="Back"
          confirmLabel={confirmFailed ? "Add anyway" : "Add server"}
          busyLabel="Adding…"
          busy={upsert.busy}
          submitForm={formId}
        >
          <TryButton busy={tryIt.busy} onTry={() => void onTry()} />
        </DialogFooter>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        {hostError ? (
          <div className="callout callout-bad callout-compact" role="alert">
            <div className="callout-text">
              <strong>Not added.</strong>
              <p>{hostError}</p>
            </div>
          </div>
        ) : null}
        <TextField
          label="Name"
          value={name}
          onChange={(value) => change({ name: value })}
          error={problems.name ?? nameError}
          hint="The code uses it to tell servers apart, as in name__tool."
          autoComplete="off"
          spellCheck={false}
          required
        />
        {entry.settings.map((setting) => (
          <SettingField
            key={setting.key}
            setting={setting}
            value={form[setting.key] ?? ""}
            error={problems[setting.key] ?? null}
            onChange={(value) => change({ form: { ...form, [setting.key]: value } })}
          />
        ))}
        {entry.settings.length === 0 ? (
          <p className="muted">This server needs no settings.</p>
        ) : null}
        <p className="muted small">
          Starts with <code>{entry.command}</code>
          {entry.command === "npx" ? " (comes with Node.js)" : null}
          {entry.command === "uvx" ? " (comes with uv)" : null}
          {entry.command === "docker" ? " (needs Docker running)" : null}.
          {entry.private
            ? " Its tools are marked private: once the code reads from them, it can only call other private tools."
            : null}
        </p>
        {entry.ask && entry.ask.length > 0 ? (
          <div className="callout callout-info callout-compact" data-testid="catalog-ask">
            <div className="callout-text">
              <p>
                <strong className="inline-strong">Asks you first</strong> before the tools that
                change or send things:{" "}
                {entry.ask.map((tool, i) => (
                  <span key={tool}>
                    {i > 0 ? ", " : null}
                    <code>{tool}</code>
                  </span>
                ))}
                . Each call waits until you allow it. You can change this per tool on the
                server&rsquo;s page.
              </p>
            </div>
          </div>
        ) : null}
        <TryResult
          busy={tryIt.busy}
          error={tryIt.error}
          result={tried && tried.ok ? tried.value : null}
        />
        {confirmFailed ? (
          <div className="callout callout-warn callout-compact" role="alert">
            <div className="callout-text">
              This server did not start when you tried it. Add it anyway? You can fix it later from
              its page.
            </div>
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}

// "Add from a .mcpb file": the user picks an MCP Bundle, the host reads its manifest, and a
// short form asks only for the settings the bundle declares (secret ones masked). Adding
// sends the file again with the values: the host checks them and the machine, unpacks the
// bundle into the data directory and saves the server. The file is read here and sent as
// bytes, so the same dialog works in the desktop app and in the browser.
import { useId, useState, type FormEvent } from "react";
import type {
  BundleSettingView,
  BundleView,
  ServerPage,
} from "../../../../shared/api/api-views.js";
import { MCPB_LIMITS } from "../../../../shared/limits.js";
import { mapFieldErrors } from "../../api/field-errors.js";
import { useMutation } from "../../api/hooks.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { FieldShell, SelectField, TextAreaField, TextField } from "../../components/field.js";
import { PickPathButton, withPickedPath } from "../../components/pick-path-button.js";
import { TryButton, TryResult } from "./try-result.js";

const RUNTIMES: Record<BundleView["serverType"], string> = {
  node: "Node.js",
  python: "Python",
  uv: "uv (Python)",
  binary: "a program for this system",
};

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // In slices: String.fromCharCode takes its bytes as arguments, and those are limited.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
    : `${Math.ceil(bytes / 1024)} KiB`;
}

function settingHint(setting: BundleSettingView): string {
  const parts = [setting.description];
  if (setting.multiple) parts.push("One per line.");
  if (setting.default.length > 0) parts.push(`Empty: ${setting.default.join(", ")}.`);
  return parts.filter((part) => part !== "").join(" ");
}

function BundleSettingField(props: {
  setting: BundleSettingView;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
}) {
  const { setting } = props;
  const common = {
    label: setting.title,
    value: props.value,
    onChange: props.onChange,
    error: props.error,
    hint: settingHint(setting),
    aside: setting.required ? undefined : "optional",
  };
  if (setting.type === "boolean") {
    return (
      <SelectField
        {...common}
        options={[
          { value: "", label: "Bundle's default" },
          { value: "true", label: "Yes" },
          { value: "false", label: "No" },
        ]}
      />
    );
  }
  const field = setting.multiple ? (
    <TextAreaField {...common} rows={3} className="input textarea input-mono" spellCheck={false} />
  ) : (
    <TextField
      {...common}
      type={setting.sensitive ? "password" : setting.type === "number" ? "number" : "text"}
      autoComplete={setting.sensitive ? "new-password" : "off"}
      className={setting.sensitive ? "input" : "input input-mono"}
      spellCheck={false}
    />
  );
  if (setting.type !== "directory" && setting.type !== "file") return field;
  return (
    <div className="field-with-picker">
      {field}
      <PickPathButton
        kind={setting.type === "directory" ? "folder" : "file"}
        label={setting.title}
        onPick={(path) => props.onChange(withPickedPath(props.value, path, setting.multiple))}
      />
    </div>
  );
}

interface Chosen {
  fileName: string;
  bytes: string;
  bundle: BundleView;
}

export function BundleAddDialog(props: {
  onBack: () => void;
  onClose: () => void;
  onAdded: (servers: ServerPage, name: string) => void;
}) {
  const formId = useId();
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [form, setForm] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const read = useMutation("servers.readBundle");
  const add = useMutation("servers.addBundle");
  const tryIt = useMutation("servers.tryBundle");
  const [tried, setTried] = useState<Awaited<ReturnType<typeof tryIt.run>> | null>(null);
  const [confirmFailed, setConfirmFailed] = useState(false);

  /** After any edit: a try answers for what was tried, and the host's complaint is old. */
  const edited = () => {
    setProblems({});
    setTried(null);
    setConfirmFailed(false);
    add.clearError();
    tryIt.clearError();
  };

  const onFile = async (file: File | undefined) => {
    setChosen(null);
    setFileProblem(null);
    read.clearError();
    edited();
    if (!file) return;
    if (file.size > MCPB_LIMITS.uploadMaxBytes) {
      setFileProblem(
        `${file.name} is ${sizeText(file.size)}; bundles of up to ${sizeText(MCPB_LIMITS.uploadMaxBytes)} can be added here. ` +
          "Add a bigger one from a terminal: codemode servers add NAME --from-mcpb FILE",
      );
      return;
    }
    const bytes = toBase64(new Uint8Array(await file.arrayBuffer()));
    const response = await read.run({ bundle: bytes });
    if (!response.ok) return;
    setChosen({ fileName: file.name, bytes, bundle: response.value.bundle });
    setName(response.value.suggestedName);
    setForm({});
    setProblems({});
  };

  /** The request to try or add, or null after showing what is missing. */
  const request = () => {
    if (!chosen) return null;
    const errors: Record<string, string> = {};
    if (!name.trim()) errors.name = "Give the server a name.";
    for (const setting of chosen.bundle.settings) {
      if (setting.required && setting.default.length === 0 && !(form[setting.key] ?? "").trim()) {
        errors[setting.key] = `${setting.title} is required.`;
      }
    }
    setProblems(errors);
    if (Object.keys(errors).length > 0) return null;
    const values = Object.fromEntries(
      chosen.bundle.settings.map((s) => {
        const text = form[s.key] ?? "";
        return [s.key, s.multiple ? text.split(/\r?\n/) : text];
      }),
    );
    return { name: name.trim(), bundle: chosen.bytes, values };
  };

  const onTry = async () => {
    const params = request();
    if (!params) return;
    setTried(null);
    setTried(await tryIt.run(params));
  };

  const failedTry = tried?.ok === true && !tried.value.ok;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const params = request();
    if (!params) return;
    if (failedTry && !confirmFailed) {
      setConfirmFailed(true);
      return;
    }
    const response = await add.run(params);
    if (response.ok) props.onAdded(response.value, params.name);
  };

  const hostErrors = mapFieldErrors(add.error ?? tryIt.error, (path) =>
    path[0] === "values" && path[1] ? path[1] : path[0] === "name" ? "name" : null,
  );
  const topError =
    read.error?.message ??
    (add.error && Object.keys(hostErrors.byField).length === 0 ? add.error.message : null);
  return (
    <Dialog
      wide
      title="Add from a .mcpb file"
      onClose={props.onClose}
      description="An MCP Bundle (.mcpb) holds a server and says how to start it. Code Mode unpacks it into its own folder and asks only for the settings it needs."
      actions={
        <DialogFooter
          onCancel={props.onBack}
          cancelLabel="Back"
          confirmLabel={confirmFailed ? "Add anyway" : "Add server"}
          busyLabel="Adding…"
          busy={add.busy}
          disabled={chosen === null}
          submitForm={formId}
        >
          {chosen ? <TryButton busy={tryIt.busy} onTry={() => void onTry()} /> : null}
        </DialogFooter>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <FieldShell
          label="Bundle file"
          hint={`A .mcpb file, up to ${sizeText(MCPB_LIMITS.uploadMaxBytes)}.`}
          error={fileProblem}
        >
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              type="file"
              accept=".mcpb,.dxt,.zip"
              className="input"
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              onChange={(event) => void onFile(event.target.files?.[0])}
            />
          )}
        </FieldShell>
        {read.busy ? <p className="muted">Reading the bundle…</p> : null}
        {topError ? (
          <div className="callout callout-bad callout-compact" role="alert">
            <div className="callout-text">
              <strong>{read.error ? "This bundle cannot be added." : "Not added."}</strong>
              <p>{topError}</p>
            </div>
          </div>
        ) : null}
        {chosen ? (
          <>
            <section aria-label="Bundle" className="callout callout-info callout-compact">
              <div className="callout-text">
                <strong>
                  {chosen.bundle.displayName} {chosen.bundle.version}
                </strong>
                <p>{chosen.bundle.description}</p>
                <p className="muted small">Runs with {RUNTIMES[chosen.bundle.serverType]}.</p>
              </div>
            </section>
            <TextField
              label="Name"
              value={name}
              onChange={(value) => {
                setName(value);
                edited();
              }}
              error={problems.name ?? hostErrors.byField.name ?? null}
              hint="The code uses it to tell servers apart, as in name__tool."
              autoComplete="off"
              spellCheck={false}
              required
            />
            {chosen.bundle.settings.map((setting) => (
              <BundleSettingField
                key={setting.key}
                setting={setting}
                value={form[setting.key] ?? ""}
                error={problems[setting.key] ?? hostErrors.byField[setting.key] ?? null}
                onChange={(value) => {
                  setForm({ ...form, [setting.key]: value });
                  edited();
                }}
              />
            ))}
            {chosen.bundle.settings.length === 0 ? (
              <p className="muted">This bundle needs no settings.</p>
            ) : null}
            <TryResult
              busy={tryIt.busy}
              error={
                tryIt.error && Object.keys(hostErrors.byField).length === 0 ? tryIt.error : null
              }
              result={tried && tried.ok ? tried.value : null}
            />
            {confirmFailed ? (
              <div className="callout callout-warn callout-compact" role="alert">
                <div className="callout-text">
                  This server did not start when you tried it. Add it anyway? You can fix it later
                  from its page.
                </div>
              </div>
            ) : null}
          </>
        ) : null}
      </form>
    </Dialog>
  );
}

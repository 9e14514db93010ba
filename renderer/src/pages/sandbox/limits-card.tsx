// The run limits and the sandbox's settings, in plain words. A value outside what the host takes
// is refused on its field, and focus moves to the first such field (opening Advanced if it is
// there), so the message is seen, not left under the fold beside a focused Save. Edits not saved
// yet are kept as a draft for this window's session: leaving the page and coming back finds them
// again, said so, and closing the window with them asks first.
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { ApiParams } from "../../../../shared/api/api-contract.js";
import type { SettingsView } from "../../../../shared/api/api-views.js";
import { SANDBOX_LIMITS } from "../../../../shared/limits.js";
import { mapFieldErrors } from "../../api/field-errors.js";
import { useLive, useMutation } from "../../api/hooks.js";
import { TextField } from "../../components/field.js";
import { IsolationField } from "../../components/isolation-field.js";
import { ErrorState, Loading } from "../../components/states.js";
import { Switch } from "../../components/switch.js";
import { SETTING_WORDS } from "../../lib/setting-labels.js";
import {
  ADVANCED_SETTINGS,
  ALL_NUMBER_SETTINGS,
  boundsOf,
  fieldLabel,
  PRELOAD_EXTRA_MIB,
  rangeText,
  RUN_SETTINGS,
  show,
  type NumberKey,
  type NumberSetting,
} from "./setting-fields.js";

/** Where a window's edits not saved yet are kept (sessionStorage: this window, this session). */
export const SANDBOX_DRAFT_KEY = "codemode.sandboxDraft";

type FormValues = Record<NumberKey, string> &
  Pick<SettingsView, "httpEnabled" | "sandboxRuntime" | "sandboxPreload">;

function toForm(settings: SettingsView): FormValues {
  const values = {
    httpEnabled: settings.httpEnabled,
    sandboxRuntime: settings.sandboxRuntime,
    sandboxPreload: settings.sandboxPreload,
  } as FormValues;
  for (const s of ALL_NUMBER_SETTINGS) values[s.key] = String(settings[s.key]);
  return values;
}

/** The draft kept for this window, if it has every field in its shape (else it is dropped). */
function readDraft(): FormValues | null {
  try {
    const text = window.sessionStorage.getItem(SANDBOX_DRAFT_KEY);
    if (text === null) return null;
    const draft = JSON.parse(text) as Record<string, unknown> | null;
    if (typeof draft !== "object" || draft === null) return null;
    const whole =
      ALL_NUMBER_SETTINGS.every((s) => typeof draft[s.key] === "string") &&
      typeof draft.httpEnabled === "boolean" &&
      typeof draft.sandboxPreload === "boolean" &&
      (draft.sandboxRuntime === "runc" || draft.sandboxRuntime === "runsc");
    return whole ? (draft as unknown as FormValues) : null;
  } catch {
    return null;
  }
}

function writeDraft(values: FormValues | null): void {
  try {
    if (values === null) window.sessionStorage.removeItem(SANDBOX_DRAFT_KEY);
    else window.sessionStorage.setItem(SANDBOX_DRAFT_KEY, JSON.stringify(values));
  } catch {
    // Storage may be full or off: the draft is a convenience, the form still works.
  }
}

function sameValues(a: FormValues, b: FormValues): boolean {
  return JSON.stringify(toSorted(a)) === JSON.stringify(toSorted(b));
}

function toSorted(values: FormValues): [string, unknown][] {
  return Object.entries(values).sort(([a], [b]) => a.localeCompare(b));
}

export function LimitsCard() {
  const settings = useLive("settings.get", {}, "settings.changed");
  const save = useMutation("settings.save");
  // A draft left by an earlier visit (or a reload) of this window: its edits come back.
  const [restored] = useState(readDraft);
  const [values, setValues] = useState<FormValues | null>(restored);
  const [dirty, setDirty] = useState(restored !== null);
  // Said once, above the form, until the draft is saved or discarded.
  const [fromDraft, setFromDraft] = useState(restored !== null);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [focusTick, setFocusTick] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const formId = useId();

  // Follow the host's values until the user starts editing.
  useEffect(() => {
    if (settings.data && !dirty) setValues(toForm(settings.data));
  }, [settings.data, dirty]);

  // A draft that says what is saved anyway is no draft.
  useEffect(() => {
    if (dirty && values && settings.data && sameValues(values, toForm(settings.data))) {
      setDirty(false);
    }
  }, [dirty, values, settings.data]);

  useEffect(() => {
    writeDraft(dirty ? values : null);
  }, [dirty, values]);

  // Closing the window (or reloading it) with edits not saved asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  const hostErrors = mapFieldErrors(save.error, (path) => path[0] ?? null);

  // After a refused save: the first field with an error, opened and focused.
  useEffect(() => {
    if (focusTick === 0) return;
    const invalid = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!invalid) return;
    const fold = invalid.closest("details");
    if (fold && !fold.open) fold.open = true;
    invalid.focus();
    invalid.scrollIntoView({ block: "center" });
  }, [focusTick]);

  if (!settings.data || !values) {
    return (
      <section className="card" aria-labelledby="limits-heading">
        <h2 id="limits-heading" className="card-title">
          Limits
        </h2>
        {settings.error ? (
          <ErrorState error={settings.error} onRetry={settings.reload} />
        ) : (
          <Loading label="Loading settings…" />
        )}
      </section>
    );
  }

  const change = (key: keyof FormValues, value: FormValues[keyof FormValues]) => {
    setValues({ ...values, [key]: value });
    setDirty(true);
    setSavedAt(null);
    setLocalErrors(({ [key]: _, ...rest }) => rest);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const base = settings.data!;
    const patch: ApiParams<"settings.save"> = {};
    const errors: Record<string, string> = {};
    for (const s of ALL_NUMBER_SETTINGS) {
      const raw = values[s.key].trim();
      const n = Number(raw);
      const { min, max } = boundsOf(s.key);
      if (raw === "" || !Number.isInteger(n) || n < min || n > max) {
        errors[s.key] = `Enter a whole number from ${show(s.key, min)} to ${show(s.key, max)}.`;
      } else if (n !== base[s.key]) {
        patch[s.key] = n;
      }
    }
    if (values.httpEnabled !== base.httpEnabled) patch.httpEnabled = values.httpEnabled;
    if (values.sandboxRuntime !== base.sandboxRuntime) patch.sandboxRuntime = values.sandboxRuntime;
    if (values.sandboxPreload !== base.sandboxPreload) patch.sandboxPreload = values.sandboxPreload;
    setLocalErrors(errors);
    if (Object.keys(errors).length > 0) {
      setFocusTick((n) => n + 1);
      return;
    }
    if (Object.keys(patch).length === 0) {
      setDirty(false);
      setFromDraft(false);
      return;
    }
    const response = await save.run(patch);
    if (response.ok) {
      settings.setData(response.value);
      setValues(toForm(response.value));
      setDirty(false);
      setFromDraft(false);
      setSavedAt(Date.now());
    } else {
      setFocusTick((n) => n + 1);
    }
  };

  const discard = () => {
    setValues(toForm(settings.data!));
    setDirty(false);
    setFromDraft(false);
    setLocalErrors({});
    save.clearError();
  };

  const field = (s: NumberSetting) => (
    <TextField
      key={s.key}
      label={fieldLabel(s)}
      value={values[s.key]}
      onChange={(v) => change(s.key, v)}
      error={localErrors[s.key] ?? hostErrors.byField[s.key] ?? null}
      hint={`${s.hint} ${rangeText(s.key)}`}
      type="number"
      inputMode="numeric"
      min={boundsOf(s.key).min}
      max={boundsOf(s.key).max}
      step={1}
      className="input input-number"
    />
  );

  const known = (key: string) =>
    ALL_NUMBER_SETTINGS.some((s) => s.key === key) ||
    key === "httpEnabled" ||
    key === "sandboxRuntime" ||
    key === "sandboxPreload";
  const otherHostErrors = Object.entries(hostErrors.byField)
    .filter(([key]) => !known(key))
    .map(([key, message]) => `${key}: ${message}`);
  const problems = [...hostErrors.rest, ...otherHostErrors];

  return (
    <section className="card" aria-labelledby="limits-heading">
      <div className="card-header">
        <h2 id="limits-heading" className="card-title">
          Limits
        </h2>
      </div>
      <form id={formId} ref={formRef} className="form" onSubmit={(e) => void submit(e)} noValidate>
        {dirty && fromDraft ? (
          <div className="callout callout-info callout-compact" role="status">
            <div className="callout-text">
              <p>
                Your changes from before are still here, not saved yet: save them or discard them.
              </p>
            </div>
          </div>
        ) : null}
        {problems.length > 0 ? (
          <div className="callout callout-bad callout-compact" role="alert">
            <div className="callout-text">
              <strong>Not saved.</strong>
              {problems.map((m) => (
                <p key={m}>{m}</p>
              ))}
            </div>
          </div>
        ) : null}
        <div className="form-grid">
          <IsolationField
            value={values.sandboxRuntime}
            onChange={(runtime) => change("sandboxRuntime", runtime)}
            error={hostErrors.byField.sandboxRuntime ?? null}
          />
          {RUN_SETTINGS.map(field)}
          <div className="field field-switch">
            <Switch
              label={SETTING_WORDS.sandboxPreload.label}
              checked={values.sandboxPreload}
              onChange={(on) => change("sandboxPreload", on)}
            />
            <div className="field-hint">
              Ready sandboxes load numpy, pandas and matplotlib while they wait, so code that uses
              them starts at once. Costs about {PRELOAD_EXTRA_MIB} MiB more memory per ready sandbox
              (of the {SANDBOX_LIMITS.memoryBytes / (1024 * 1024)} MiB each run may use).
            </div>
            {hostErrors.byField.sandboxPreload ? (
              <div className="field-error">{hostErrors.byField.sandboxPreload}</div>
            ) : null}
          </div>
          <div className="field">
            <label className="field-label" htmlFor={`${formId}-memory`}>
              Memory per run
            </label>
            <input
              id={`${formId}-memory`}
              className="input input-number"
              value={`${SANDBOX_LIMITS.memoryBytes / (1024 * 1024)} MiB`}
              readOnly
              aria-describedby={`${formId}-memory-hint`}
            />
            <div id={`${formId}-memory-hint`} className="field-hint">
              Fixed, with no swap: part of what keeps the sandbox safe.
            </div>
          </div>
        </div>
        <details className="disclosure">
          <summary>Advanced</summary>
          <div className="form-grid">
            {ADVANCED_SETTINGS.map(field)}
            <div className="field field-switch">
              <Switch
                label={SETTING_WORDS.httpEnabled.label}
                checked={values.httpEnabled}
                onChange={(on) => change("httpEnabled", on)}
              />
              <div className="field-hint">
                Lets AI apps that connect over HTTP reach Code Mode on this computer (127.0.0.1
                only), with the access key.
              </div>
              {hostErrors.byField.httpEnabled ? (
                <div className="field-error">{hostErrors.byField.httpEnabled}</div>
              ) : null}
            </div>
          </div>
        </details>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={save.busy || !dirty}>
            {save.busy ? "Saving…" : "Save limits"}
          </button>
          {dirty ? (
            <button type="button" className="button" onClick={discard}>
              Discard changes
            </button>
          ) : null}
          <span className="muted small" role="status">
            {savedAt ? "Saved. New runs use these limits." : dirty ? "Not saved yet." : ""}
          </span>
        </div>
      </form>
    </section>
  );
}

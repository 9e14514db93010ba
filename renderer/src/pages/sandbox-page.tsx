// Sandbox: Docker, the image (build / rebuild), and the run limits.
import { EngineChoiceCard } from "../components/engine-choice.js";
import { useEffect, useId, useState, type FormEvent } from "react";
import type { ApiParams } from "../../../shared/api/api-contract.js";
import type { SettingsView } from "../../../shared/api/api-views.js";
import {
  BRIDGE_LIMITS,
  HOST_LIMITS,
  RUN_LIMITS,
  SANDBOX_LIMITS,
  SETTINGS_BOUNDS,
} from "../../../shared/limits.js";
import { mapFieldErrors } from "../api/field-errors.js";
import { useLive, useMutation } from "../api/hooks.js";
import { TextField } from "../components/field.js";
import { IsolationField } from "../components/isolation-field.js";
import {
  DockerStatusCard,
  ImageBadge,
  ImageBuildControls,
  ImageSummary,
} from "../components/sandbox-status.js";
import { ErrorState, Loading } from "../components/states.js";
import { Switch } from "../components/switch.js";

type NumberKey = Exclude<
  keyof SettingsView,
  "httpEnabled" | "sandboxRuntime" | "sandboxPreload" | "sandboxEngine"
>;

interface NumberSetting {
  key: NumberKey;
  label: string;
  /** What it does; the range the host accepts (SETTINGS_BOUNDS) is added after it. */
  hint: string;
  unit?: string;
}

/** The range the host accepts for a setting, checked here too and shown in its hint. */
function boundsOf(key: NumberKey): { min: number; max: number } {
  return SETTINGS_BOUNDS[key];
}

function rangeText(key: NumberKey): string {
  const { min, max } = boundsOf(key);
  // Digit grouping from 10,000 up; a port reads as a plain number.
  const show = (n: number) =>
    key === "httpPort" || n < 10_000 ? String(n) : n.toLocaleString("en-US");
  return `${show(min)} to ${show(max)}.`;
}

const RUN_SETTINGS: NumberSetting[] = [
  {
    key: "deadlineSeconds",
    label: "Deadline (seconds)",
    hint:
      "A run is stopped after this long. " +
      `Most MCP clients stop waiting after ${HOST_LIMITS.clientDefaultTimeoutSeconds} s unless they reset ` +
      `their timeout on progress: over ${RUN_LIMITS.defaultDeadlineSeconds}, a long run may be cut.`,
  },
  {
    key: "maxCallsPerRun",
    label: "Max calls per run",
    hint: "Tool calls one run may make.",
  },
  {
    key: "warmPoolSize",
    label: "Warm pool size",
    hint:
      "Containers kept started and idle while runs are quiet, so a run begins at once. Each " +
      "idle container holds memory (about 8 MiB; about 64 MiB with library preloading, which " +
      "one of them skips once there are two or more: the second run of a burst needs " +
      "a container, not the libraries).",
  },
  {
    key: "warmPoolMaxSize",
    label: "Warm pool grows to",
    hint:
      "When runs come back to back, the pool grows up to this many idle containers (never past " +
      "Concurrent runs), started side by side: faster bursts, for the memory of each extra " +
      "container (they skip library preloading) and the CPU of starting them.",
  },
  {
    key: "warmPoolIdleSeconds",
    label: "Shrink pool after (seconds)",
    hint:
      "A grown pool halves after this long without a run, down to the warm pool size, freeing " +
      "the memory of its extra containers.",
  },
  {
    key: "maxConcurrentRuns",
    label: "Concurrent runs",
    hint: "Runs allowed at the same time; more wait their turn.",
  },
  {
    key: "approvalTimeoutSeconds",
    label: "Ask-first wait (seconds)",
    hint: "A call to an ask-first tool is denied if you do not answer within this time. The run's deadline keeps running meanwhile.",
  },
];

const ADVANCED_SETTINGS: NumberSetting[] = [
  {
    key: "serverConcurrency",
    label: "Calls per server at once",
    hint:
      "The most tool calls sent to one server at the same time, all runs together; more wait " +
      `their turn. Each burst starts at ${BRIDGE_LIMITS.serverConcurrencyStart} (or this, if ` +
      "lower) and sends more only while the server answers as fast as before. Protects the " +
      "server (and any service behind it) from a burst of gathered calls.",
  },
  {
    key: "descriptionBudgetChars",
    label: "Tool description budget (characters)",
    hint: "How much of run_python's description may list tool details.",
  },
  {
    key: "auditRetentionDays",
    label: "Keep audit log (days)",
    hint: "Older audit files are deleted.",
  },
  {
    key: "auditMaxFileMiB",
    label: "Audit file size (MiB)",
    hint: "A new audit file is started past this size.",
  },
  {
    key: "auditMaxTotalMiB",
    label: "Audit log total size (MiB)",
    hint: "Past this size the oldest audit files are deleted.",
  },
  {
    key: "httpPort",
    label: "HTTP port",
    hint: "Port of the local HTTP transport (127.0.0.1 only).",
  },
];

const ALL_NUMBER_SETTINGS = [...RUN_SETTINGS, ...ADVANCED_SETTINGS];

/**
 * What preloading adds to the memory of one idle warm container, rounded up from
 * bench/sandbox-preload.ts (12.6 MiB without, 66.3 MiB with, on this image).
 */
const PRELOAD_EXTRA_MIB = 55;

export function SandboxPage() {
  return (
    <div className="page">
      <div className="stack">
        <DockerStatusCard />
        <EngineChoiceCard />
        <section className="card" aria-labelledby="image-card-heading">
          <div className="card-header">
            <h2 id="image-card-heading" className="card-title">
              Sandbox image
            </h2>
            <ImageBadge />
          </div>
          <ImageSummary />
          <ImageBuildControls />
        </section>
      </div>
      <LimitsCard />
    </div>
  );
}

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

function LimitsCard() {
  const settings = useLive("settings.get", {}, "settings.changed");
  const save = useMutation("settings.save");
  const [values, setValues] = useState<FormValues | null>(null);
  const [dirty, setDirty] = useState(false);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const formId = useId();

  // Follow the host's values until the user starts editing.
  useEffect(() => {
    if (settings.data && !dirty) setValues(toForm(settings.data));
  }, [settings.data, dirty]);

  const hostErrors = mapFieldErrors(save.error, (path) => path[0] ?? null);

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
      if (raw === "" || !Number.isInteger(n)) {
        errors[s.key] = "Enter a whole number.";
      } else if (n < boundsOf(s.key).min || n > boundsOf(s.key).max) {
        errors[s.key] = `Between ${rangeText(s.key).replace(" to ", " and ")}`;
      } else if (n !== base[s.key]) {
        patch[s.key] = n;
      }
    }
    if (values.httpEnabled !== base.httpEnabled) patch.httpEnabled = values.httpEnabled;
    if (values.sandboxRuntime !== base.sandboxRuntime) patch.sandboxRuntime = values.sandboxRuntime;
    if (values.sandboxPreload !== base.sandboxPreload) patch.sandboxPreload = values.sandboxPreload;
    setLocalErrors(errors);
    if (Object.keys(errors).length > 0) return;
    if (Object.keys(patch).length === 0) {
      setDirty(false);
      return;
    }
    const response = await save.run(patch);
    if (response.ok) {
      settings.setData(response.value);
      setValues(toForm(response.value));
      setDirty(false);
      setSavedAt(Date.now());
    }
  };

  const field = (s: NumberSetting) => (
    <TextField
      key={s.key}
      label={s.label}
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

  const unclaimed = hostErrors.rest.filter(() => true);
  const otherHostErrors = Object.entries(hostErrors.byField)
    .filter(
      ([key]) =>
        !ALL_NUMBER_SETTINGS.some((s) => s.key === key) &&
        key !== "httpEnabled" &&
        key !== "sandboxRuntime" &&
        key !== "sandboxPreload",
    )
    .map(([key, message]) => `${key}: ${message}`);

  return (
    <section className="card" aria-labelledby="limits-heading">
      <div className="card-header">
        <h2 id="limits-heading" className="card-title">
          Limits
        </h2>
      </div>
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        {unclaimed.length + otherHostErrors.length > 0 ? (
          <div className="callout callout-bad callout-compact" role="alert">
            <div className="callout-text">
              <strong>Not saved.</strong>
              {[...unclaimed, ...otherHostErrors].map((m) => (
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
              label="Preload numpy, pandas and matplotlib"
              checked={values.sandboxPreload}
              onChange={(on) => change("sandboxPreload", on)}
            />
            <div className="field-hint">
              Warm containers import them while they wait, so code using them starts at once. Costs
              about {PRELOAD_EXTRA_MIB} MiB more memory per warm container (of the{" "}
              {SANDBOX_LIMITS.memoryBytes / (1024 * 1024)} MiB each run may use).
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
              Fixed, with no swap: part of the sandbox&rsquo;s safety limits.
            </div>
          </div>
        </div>
        <details className="disclosure">
          <summary>Advanced</summary>
          <div className="form-grid">
            {ADVANCED_SETTINGS.map(field)}
            <div className="field field-switch">
              <Switch
                label="Local HTTP transport"
                checked={values.httpEnabled}
                onChange={(on) => change("httpEnabled", on)}
              />
              <div className="field-hint">
                Lets MCP clients that speak HTTP connect on 127.0.0.1, with the access key.
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
            <button
              type="button"
              className="button"
              onClick={() => {
                setValues(toForm(settings.data!));
                setDirty(false);
                setLocalErrors({});
                save.clearError();
              }}
            >
              Discard changes
            </button>
          ) : null}
          <span className="muted small" role="status">
            {savedAt ? "Saved. New runs use these limits." : ""}
          </span>
        </div>
      </form>
    </section>
  );
}

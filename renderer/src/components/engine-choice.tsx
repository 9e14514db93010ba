// The container engines Code Mode found (Docker, Docker Desktop, Podman, Colima, Rancher Desktop,
// OrbStack, DOCKER_HOST, the Docker context), which one it uses, and the user's choice among
// them, saved as the sandboxEngine setting. When none answers, how to get one on this platform.
import { useState } from "react";
import type { EngineView } from "../../../shared/api/api-views.js";
import { ENGINE_LIMITS } from "../../../shared/limits.js";
import { engineChoiceProblem } from "../../../shared/settings.js";
import { useLive, useMutation } from "../api/hooks.js";
import { useAppState } from "../state/app-state.js";
import { Badge } from "./badge.js";

const AUTO = "";
/** The select's value while the saved choice is not known yet. */
const READING = "__reading";
/** The select's value for a chosen engine that is not among those answering. */
const CUSTOM = "__custom";

function engineState(engine: EngineView): string {
  if (engine.answered)
    return `${engine.kind === "podman" ? "Podman" : "Docker"} ${engine.version ?? ""}`.trim();
  if (!engine.found) return "not there";
  return engine.problem ?? "does not answer";
}

export function EngineChoiceCard() {
  const { docker } = useAppState();
  const settings = useLive("settings.get", {}, "settings.changed");
  const save = useMutation("settings.save");
  const [custom, setCustom] = useState("");
  const data = docker.data;
  const engines = data?.engines ?? [];
  const chosen = settings.data?.sandboxEngine ?? AUTO;
  const answering = engines.filter((e) => e.answered);
  const customProblem = custom === "" ? null : engineChoiceProblem(custom);

  const choose = async (value: string): Promise<void> => {
    const response = await save.run({ sandboxEngine: value });
    if (response.ok) {
      settings.setData(response.value);
      docker.reload();
    }
  };

  return (
    <section className="card" aria-labelledby="engine-heading">
      <div className="card-header">
        <h2 id="engine-heading" className="card-title">
          Container engine
        </h2>
        {data?.engine ? (
          <Badge tone="ok" dot>
            {data.engine}
          </Badge>
        ) : null}
      </div>
      <p className="card-text">
        {/* Until the settings arrive the choice is not known: "looks for one" may be untrue. */}
        {!settings.data
          ? settings.error
            ? `Your choice of engine could not be read: ${settings.error.message}`
            : "Reading your choice of engine…"
          : chosen === AUTO
            ? "Code Mode uses DOCKER_HOST or your Docker context when set, else the first engine that answers."
            : `Code Mode uses the engine you chose: ${chosen}.`}
        {data?.remote ? " It is on another machine: each run's start waits on the network." : ""}
      </p>
      {engines.length > 0 ? (
        <table className="engine-table" aria-label="Engines looked for">
          <thead>
            <tr>
              <th scope="col">Engine</th>
              <th scope="col">Where</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {engines.map((engine) => (
              <tr key={engine.url} aria-current={engine.name === data?.engine ? "true" : undefined}>
                <td>
                  {engine.product} <span className="muted small">({engine.name})</span>
                </td>
                <td>
                  <code>{engine.url}</code>
                </td>
                <td>{engineState(engine)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {data && data.state !== "ready" && (data.advice ?? []).length > 0 ? (
        <div className="tried">
          <p className="muted small">To get an engine:</p>
          <ul>
            {(data.advice ?? []).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="engine-select">Use</label>
        <select
          id="engine-select"
          value={
            !settings.data
              ? READING
              : answering.some((e) => e.name === chosen) || chosen === AUTO
                ? chosen
                : CUSTOM
          }
          disabled={save.busy || !settings.data}
          onChange={(event) => {
            if (event.target.value !== CUSTOM) void choose(event.target.value);
          }}
        >
          {!settings.data ? <option value={READING}>Reading your choice…</option> : null}
          <option value={AUTO}>
            Find one (DOCKER_HOST, Docker context, then the first that answers)
          </option>
          {answering.map((engine) => (
            <option key={engine.name} value={engine.name}>
              {engine.product}: {engine.name}
            </option>
          ))}
          {chosen !== AUTO && !answering.some((e) => e.name === chosen) ? (
            <option value={CUSTOM}>{chosen}</option>
          ) : null}
        </select>
      </div>
      <form
        className="field"
        onSubmit={(event) => {
          event.preventDefault();
          if (custom !== "" && customProblem === null) void choose(custom);
        }}
      >
        <label htmlFor="engine-url">Or an engine URL (unix://, tcp:// with TLS, ssh://)</label>
        <input
          id="engine-url"
          type="text"
          value={custom}
          maxLength={ENGINE_LIMITS.choiceMaxChars}
          placeholder="ssh://user@build-server"
          onChange={(event) => setCustom(event.target.value)}
          aria-invalid={customProblem !== null}
        />
        {customProblem ? <p className="field-error">{customProblem}</p> : null}
        <button
          type="submit"
          className="button"
          disabled={save.busy || custom === "" || customProblem !== null}
        >
          Use this engine
        </button>
      </form>
      {save.error ? <p className="field-error">{save.error.message}</p> : null}
    </section>
  );
}

// The Sandbox page's isolation choice: standard (runc, Docker's default) or strong (gVisor's
// runsc). Strong is offered only when the engine has runsc; otherwise the field says how to get
// it, and that Docker Desktop (macOS, Windows) does not offer it.
import { useId } from "react";
import type { SandboxRuntime } from "../../../shared/settings.js";
import { useEvent, useRequest } from "../api/hooks.js";
import { useAppState } from "../state/app-state.js";

export const ISOLATION_LABELS: Record<SandboxRuntime, string> = {
  runc: "Standard (runc)",
  runsc: "Strong (gVisor)",
};

export function IsolationField(props: {
  value: SandboxRuntime;
  onChange: (runtime: SandboxRuntime) => void;
  error: string | null;
}) {
  const id = useId();
  const runtimes = useRequest("sandbox.runtimes", {});
  // Docker may come up (or go) while the page is open: ask again when it changes.
  useEvent("docker.changed", () => runtimes.reload());
  const gvisor = runtimes.data?.gvisor ?? false;
  const engine = useAppState().docker.data;
  const podman = engine?.kind === "podman";
  const engineName = podman ? "Podman" : "Docker";
  // A saved runsc stays selectable even while the engine is away, so the form shows the truth.
  const strongOffered = gvisor || props.value === "runsc";
  return (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-isolation`}>
        Isolation
      </label>
      <select
        id={`${id}-isolation`}
        className="input select"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value as SandboxRuntime)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={`${id}-isolation-hint`}
      >
        <option value="runc">{ISOLATION_LABELS.runc}</option>
        <option value="runsc" disabled={!strongOffered}>
          {ISOLATION_LABELS.runsc}
        </option>
      </select>
      <div id={`${id}-isolation-hint`} className="field-hint">
        {gvisor ? (
          <>
            Strong puts one more wall (gVisor) between the code and this computer: safer for code or
            data you do not trust at all, a little slower to start. Ready sandboxes are replaced
            when it changes.
          </>
        ) : !runtimes.data || runtimes.data.available === null ? (
          // Until the engine has answered, nothing is known: claiming it lacks gVisor would be wrong.
          <>Strong isolation (gVisor) is offered once the container engine answers and has runsc.</>
        ) : (
          <span data-testid="gvisor-missing">
            Strong isolation needs gVisor, which this {engineName} engine
            {engine?.endpoint ? (
              <>
                {" "}
                (<code>{engine.endpoint}</code>)
              </>
            ) : null}{" "}
            does not have. On Linux, install it (Debian and Ubuntu: <code>apt install runsc</code>)
            {podman ? (
              <>
                , then make it Podman&apos;s runtime (<code>runtime = &quot;runsc&quot;</code> in{" "}
                <code>containers.conf</code>: Podman runs every container under its default runtime)
                and restart Podman.
              </>
            ) : (
              <>
                , register it with <code>sudo runsc install</code> and restart Docker. Docker
                Desktop on macOS and Windows does not offer gVisor.
              </>
            )}
          </span>
        )}
      </div>
      {props.error ? <div className="field-error">{props.error}</div> : null}
    </div>
  );
}

// Docker status and the sandbox image build, shared by the First run and Sandbox pages.
import { useEffect, useRef, useState } from "react";
import type { DockerStatusView } from "../../../shared/api/api-views.js";
import { formatBytes, formatDateTime } from "../lib/format.js";
import { useAppState } from "../state/app-state.js";
import { Badge } from "./badge.js";
import { PickPathButton } from "./pick-path-button.js";
import { ErrorState, Loading } from "./states.js";

const DOCKER_DEFAULT_ADVICE: Record<DockerStatusView["state"], string> = {
  ready: "",
  "not-running":
    "Docker is installed but not running. Start Docker Desktop (or the Docker service), wait until it says it is running, then choose Check again.",
  "not-installed":
    "Code Mode runs code inside Docker, which is not installed. Install Docker Desktop from docker.com, start it, then choose Check again.",
  unreachable:
    "Docker stopped answering. Code Mode tries again by itself and resumes runs when it is back.",
};

export function DockerStatusCard(props: { headingLevel?: 2 | 3 }) {
  const { docker } = useAppState();
  const Heading = props.headingLevel === 3 ? "h3" : "h2";
  const data = docker.data;
  return (
    <section className="card" aria-labelledby="docker-heading">
      <div className="card-header">
        <Heading id="docker-heading" className="card-title">
          Docker
        </Heading>
        {data ? (
          data.state === "ready" ? (
            <Badge tone="ok" dot>
              Running
            </Badge>
          ) : data.state === "not-running" ? (
            <Badge tone="bad" dot>
              Not running
            </Badge>
          ) : data.state === "unreachable" ? (
            <Badge tone="bad" dot>
              Not reachable
            </Badge>
          ) : (
            <Badge tone="bad" dot>
              Not installed
            </Badge>
          )
        ) : null}
      </div>
      {!data && docker.error ? <ErrorState error={docker.error} onRetry={docker.reload} /> : null}
      {!data && !docker.error ? <Loading label="Checking Docker…" /> : null}
      {data?.state === "ready" ? (
        <p className="card-text">
          {data.kind === "podman" ? "Podman" : "Docker"} {data.version ?? ""} is running
          {data.endpoint ? (
            <>
              {" "}
              at <code>{data.endpoint}</code>
            </>
          ) : null}
          .
        </p>
      ) : null}
      {data && data.state !== "ready" ? (
        <>
          <p className="card-text">{data.message ?? DOCKER_DEFAULT_ADVICE[data.state]}</p>
          {data.tried.length > 0 ? (
            <div className="tried">
              <p className="muted small">Places Code Mode looked for Docker:</p>
              <ul className="code-list">
                {data.tried.map((socket) => (
                  <li key={socket}>
                    <code>{socket}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </>
      ) : null}
      {data && data.state !== "ready" ? (
        <div className="card-actions">
          <button
            type="button"
            className="button button-primary"
            onClick={docker.reload}
            disabled={docker.loading}
          >
            {docker.loading ? "Checking…" : "Check again"}
          </button>
        </div>
      ) : null}
    </section>
  );
}

/** Build button, progress bar, streamed log and result. */
/** The image's state in one word: building, ready or not built (nothing while loading). */
export function ImageBadge() {
  const { image, build } = useAppState();
  if (!image.data) return null;
  if (build.running) {
    return (
      <Badge tone="info" dot>
        Building
      </Badge>
    );
  }
  return image.data.present ? (
    <Badge tone="ok" dot>
      Ready
    </Badge>
  ) : (
    <Badge tone="warn" dot>
      Not built
    </Badge>
  );
}

export function ImageBuildControls() {
  const { image, docker, build, startBuild } = useAppState();
  const dockerReady = docker.data?.state === "ready";
  // Until Docker's state arrives it is not known to be down: no "Start Docker first" then.
  const dockerDown = docker.data !== undefined && !dockerReady;
  const present = image.data?.present ?? false;
  const percent =
    build.step !== null && build.total ? Math.round((build.step / build.total) * 100) : null;

  return (
    <div className="build">
      <div className="build-row">
        <button
          type="button"
          className={present ? "button" : "button button-primary"}
          disabled={!dockerReady || build.running}
          aria-describedby={dockerDown ? "build-needs-docker" : undefined}
          onClick={() => void startBuild()}
        >
          {build.running ? "Building…" : present ? "Rebuild image" : "Build image"}
        </button>
        {dockerDown ? (
          <span id="build-needs-docker" className="muted small">
            Start Docker first.
          </span>
        ) : dockerReady && image.data !== undefined && !build.running && !present ? (
          <span className="muted small">Takes a few minutes the first time.</span>
        ) : null}
      </div>

      {build.running ? (
        <div className="progress-block">
          <div className="progress-label" id="build-progress-label">
            {build.step !== null && build.total
              ? `Step ${build.step} of ${build.total}`
              : "Starting the build…"}
            {build.stepText ? <span className="progress-step">{build.stepText}</span> : null}
          </div>
          <div
            className={`progress${percent === null ? " progress-indeterminate" : ""}`}
            role="progressbar"
            aria-label="Build progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent ?? undefined}
            aria-valuetext={percent === null ? "Starting" : `${percent}%`}
          >
            <div className="progress-fill" style={{ width: `${percent ?? 30}%` }} />
          </div>
        </div>
      ) : null}

      {build.startError ? (
        <ErrorState error={build.startError} title="The build did not start" />
      ) : null}

      {build.result && !build.running ? (
        build.result.ok ? (
          <div className="callout callout-ok" role="status">
            <div className="callout-text">
              <strong>Image built.</strong>
              <p>
                <code>{build.result.tag}</code> is ready to run code.
              </p>
            </div>
          </div>
        ) : (
          <div className="callout callout-bad" role="alert">
            <div className="callout-text">
              <strong>The image could not be built.</strong>
              <p>{build.result.error ?? "See the build log for details."}</p>
            </div>
          </div>
        )
      ) : null}

      {dockerReady && !build.running ? <BaseImageFromFile onBuild={startBuild} /> : null}

      {build.log.length > 0 ? (
        <BuildLog
          lines={build.log}
          dropped={build.droppedLines}
          open={build.result !== null && !build.result.ok}
        />
      ) : null}
    </div>
  );
}

/**
 * The image builds FROM a base image the engine downloads. Where it cannot (no registry
 * reachable), the build first loads it from another engine this computer runs, by itself; or,
 * here, from a file made elsewhere with `docker save`.
 */
function BaseImageFromFile(props: { onBuild: (baseFrom?: string) => Promise<void> }) {
  const [path, setPath] = useState("");
  return (
    <details className="disclosure">
      <summary>The engine cannot download the base image?</summary>
      <p className="muted small">
        The build first looks for the base image (<code>debian:trixie-slim</code>) on the other
        container engines of this computer. Without one, save it on a computer that has it (
        <code>docker save -o base.tar debian:trixie-slim</code>), copy the file here and name it:
      </p>
      <div className="build-row">
        <label className="visually-hidden" htmlFor="base-image-file">
          Base image file
        </label>
        <input
          id="base-image-file"
          className="input"
          type="text"
          placeholder="/path/to/base.tar"
          value={path}
          onChange={(event) => setPath(event.target.value)}
        />
        <PickPathButton kind="file" label="the base image file" onPick={setPath} />
        <button
          type="button"
          className="button"
          disabled={path.trim() === ""}
          onClick={() => void props.onBuild(path.trim())}
        >
          Build with this file
        </button>
      </div>
    </details>
  );
}

function BuildLog(props: { lines: string[]; dropped: number; open: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [props.lines]);
  return (
    <details className="disclosure" open={props.open}>
      <summary>Build log ({props.lines.length.toLocaleString()} lines)</summary>
      <pre
        ref={ref}
        className="log-block"
        role="log"
        aria-live="off"
        aria-label="Build log"
        tabIndex={0}
        onScroll={(event) => {
          const el = event.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {props.dropped > 0 ? `… ${props.dropped.toLocaleString()} earlier lines not shown\n` : ""}
        {props.lines.join("\n")}
      </pre>
    </details>
  );
}

export function ImageSummary() {
  const { image } = useAppState();
  const data = image.data;
  if (!data) {
    return image.error ? (
      <ErrorState error={image.error} onRetry={image.reload} />
    ) : (
      <Loading label="Checking the sandbox image…" />
    );
  }
  const libraries = Object.entries(data.libraries).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      {data.stale.length > 0 ? (
        // Older images of earlier versions: the current one is `tag`; these only take space.
        <div className="callout callout-info">
          <div className="callout-text">
            <strong>Older sandbox images are still on this computer.</strong>
            <ul>
              {data.stale.map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
            <p>Code Mode no longer uses them; they are safe to remove with Docker.</p>
          </div>
        </div>
      ) : null}
      <dl className="facts">
        <div className="fact-span-2">
          <dt>Tag</dt>
          <dd>
            <code className="wrap-anywhere">{data.tag}</code>
          </dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(data.sizeBytes)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(data.created)}</dd>
        </div>
        <div>
          <dt>Python</dt>
          <dd>{data.python ?? "—"}</dd>
        </div>
      </dl>
      {libraries.length > 0 ? (
        <details className="disclosure">
          <summary>Libraries ({libraries.length})</summary>
          <table className="table table-compact">
            <caption className="visually-hidden">Python libraries in the image</caption>
            <thead>
              <tr>
                <th scope="col">Library</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {libraries.map(([name, version]) => (
                <tr key={name}>
                  <td>{name}</td>
                  <td>
                    <code>{version}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </>
  );
}

import { DockerStatusCard, ImageBadge, ImageBuildControls } from "../components/sandbox-status.js";
import { FirstSteps } from "../components/first-steps.js";
import { useAppState } from "../state/app-state.js";

export function FirstRunPage() {
  const { docker, image } = useAppState();
  const dockerReady = docker.data?.state === "ready";
  const imageReady = image.data?.present ?? false;

  return (
    <div className="page page-narrow">
      <p className="lead">
        Code Mode runs the Python your AI assistant writes inside a locked-down Docker container.
        Three steps get it ready.
      </p>

      <ol className="steps">
        <li className={`step${dockerReady ? " is-done" : " is-current"}`}>
          <span className="step-marker" aria-hidden="true">
            {dockerReady ? "✓" : "1"}
          </span>
          <div className="step-body">
            <DockerStatusCard />
          </div>
        </li>

        <li className={`step${imageReady ? " is-done" : dockerReady ? " is-current" : ""}`}>
          <span className="step-marker" aria-hidden="true">
            {imageReady ? "✓" : "2"}
          </span>
          <div className="step-body">
            <section className="card" aria-labelledby="image-heading">
              <div className="card-header">
                <h2 id="image-heading" className="card-title">
                  Sandbox image
                </h2>
                <ImageBadge />
              </div>
              <p className="card-text">
                {imageReady
                  ? "The image with Python and its libraries is built."
                  : "Code Mode builds a small image with Python and common data libraries. It runs on this computer and needs no account."}
              </p>
              <ImageBuildControls />
            </section>
          </div>
        </li>

        <li className={`step${dockerReady && imageReady ? " is-current" : ""}`}>
          <span className="step-marker" aria-hidden="true">
            3
          </span>
          <div className="step-body">
            <FirstSteps />
          </div>
        </li>
      </ol>
    </div>
  );
}

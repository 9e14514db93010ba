// Sandbox: Docker, the image (build / rebuild), the sandboxes right now, what the sandbox keeps
// the code from doing, and the run limits.
import { useLive } from "../api/hooks.js";
import { EngineChoiceCard } from "../components/engine-choice.js";
import {
  DockerStatusCard,
  ImageBadge,
  ImageBuildControls,
  ImageSummary,
} from "../components/sandbox-status.js";
import { BlocksCard } from "./sandbox/blocks-card.js";
import { LimitsCard } from "./sandbox/limits-card.js";
import { PoolCard } from "./sandbox/pool-card.js";
import { WorkspacesCard } from "./sandbox/workspaces-card.js";

export function SandboxPage() {
  const settings = useLive("settings.get", {}, "settings.changed");
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
      <div className="stack">
        <PoolCard preload={settings.data?.sandboxPreload} />
        <BlocksCard
          deadlineSeconds={settings.data?.deadlineSeconds}
          maxCalls={settings.data?.maxCallsPerRun}
        />
      </div>
      <LimitsCard />
      <WorkspacesCard />
    </div>
  );
}

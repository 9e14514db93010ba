// The Sandbox page's view of the image, apart from sandbox-supervisor.ts (which owns Docker and the
// Sandbox's life): what Docker says about the tag, plus what a probe inside it found.

import type { ImageStatusView } from "../../../shared/api/api-views.js";
import type { DockerStatus } from "./container-engine/docker-status.js";
import type { ContextFile } from "./image.js";
import { sandboxImageStatus } from "./image-status.js";
import { probeImage, type ImageProbe } from "./image-probe.js";
import type { Sandbox } from "./sandbox.js";

/** One probe per image tag, shared by every caller (a failed one is retried later). */
export class ImageProbes {
  private readonly probes = new Map<string, Promise<ImageProbe | null>>();

  get(tag: string, sandbox: Sandbox): Promise<ImageProbe | null> {
    let pending = this.probes.get(tag);
    if (!pending) {
      pending = probeImage(sandbox).catch(() => null);
      this.probes.set(tag, pending);
      void pending.then((result) => {
        if (result === null) this.probes.delete(tag);
      });
    }
    return pending;
  }
}

export interface ImageViewInput {
  tag: string;
  files: ContextFile[];
  building: boolean;
  docker: DockerStatus | null;
  /** Read after Docker answered: the sandbox may have come or gone meanwhile. */
  sandbox: () => Sandbox | null;
  probes: ImageProbes;
  /** Told whether the tag is on the engine, each time Docker is asked. */
  onPresent: (present: boolean) => void;
}

export async function imageStatusView(input: ImageViewInput): Promise<ImageStatusView> {
  const empty: ImageStatusView = {
    tag: input.tag,
    present: false,
    stale: [],
    sizeBytes: null,
    created: null,
    python: null,
    libraries: {},
    building: input.building,
  };
  if (input.docker?.state !== "ready") return empty;
  const status = await sandboxImageStatus(input.docker.engine, input.files);
  input.onPresent(status.present);
  let probe: ImageProbe | null = null;
  const sandbox = input.sandbox();
  if (status.present && sandbox) probe = await input.probes.get(input.tag, sandbox);
  return {
    ...empty,
    present: status.present,
    stale: status.stale,
    sizeBytes: status.sizeBytes,
    created: status.created,
    python: probe?.python ?? null,
    libraries: probe?.libraries ?? {},
  };
}

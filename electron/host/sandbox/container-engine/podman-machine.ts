// Where `podman machine` (macOS, Windows) keeps each machine's Docker-compatible socket, as the
// podman CLI itself says it (`podman machine inspect`): the path moved between Podman versions.
import { execFile } from "node:child_process";

/** `podman machine inspect` must answer within this, or the machines are not looked at. */
export const PODMAN_INSPECT_TIMEOUT_MS = 3_000;
/** Its answer is a few KiB per machine; more is not read. */
const PODMAN_INSPECT_MAX_BYTES = 1024 * 1024;

export interface PodmanMachineSocket {
  name: string;
  socket: string;
}

/** The sockets named in `podman machine inspect`'s JSON (pure). */
export function parseMachineInspect(text: string): PodmanMachineSocket[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(0, PODMAN_INSPECT_MAX_BYTES));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((machine: unknown) => {
    const m = machine as {
      Name?: unknown;
      ConnectionInfo?: { PodmanSocket?: { Path?: unknown }; PodmanPipe?: { Path?: unknown } };
    };
    const socket = m.ConnectionInfo?.PodmanPipe?.Path ?? m.ConnectionInfo?.PodmanSocket?.Path;
    return typeof m.Name === "string" && typeof socket === "string"
      ? [{ name: m.Name, socket }]
      : [];
  });
}

/** The machines' sockets; none when the podman CLI is not there or does not answer in time. */
export function podmanMachineSockets(): Promise<PodmanMachineSocket[]> {
  return new Promise((resolve) => {
    execFile(
      "podman",
      ["machine", "inspect"],
      {
        timeout: PODMAN_INSPECT_TIMEOUT_MS,
        maxBuffer: PODMAN_INSPECT_MAX_BYTES,
        windowsHide: true,
      },
      (error, stdout) => resolve(error ? [] : parseMachineInspect(stdout)),
    );
  });
}

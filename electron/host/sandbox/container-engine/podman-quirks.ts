// Where Podman's Docker-compatible API needs the same hardened spec said another way. Each entry
// keeps a limit of container-spec.ts as it is on Docker; none of them loosens one.
import type { ContainerCreateOptions } from "dockerode";
import type { EngineFlavour } from "./engine-flavour.js";

/**
 * The process-count rlimit (RLIMIT_NPROC) a rootful Podman container gets. Podman raises it (and
 * the open-files one) to 1048576 unless the spec names it, and an engine without
 * CAP_SYS_RESOURCE (a container, a restricted VM, some CI runners) cannot raise a hard limit:
 * every start failed with "error setting rlimit type 6: operation not permitted". Docker sets
 * none. It is not the sandbox's process limit (PidsLimit is, per container, on both engines):
 * the rlimit counts every process of the user 65534 on the whole machine, so a low value would
 * let one sandbox starve the others; this one is below any engine's own limit seen in practice
 * and above what all sandboxes of a host can hold at their pids limit.
 */
export const PODMAN_NPROC_RLIMIT = 4096;

/**
 * Writable places Podman adds to a read-only root (its `read_only_tmpfs` default: /run and
 * /var/tmp as tmpfs, without noexec). The sandbox's only writable place is /tmp (noexec,
 * size-capped), so these are mounted read-only and noexec instead.
 */
export const PODMAN_READ_ONLY_TMPFS = ["/run", "/var/tmp"] as const;
const CLOSED_TMPFS = "ro,noexec,nosuid,nodev,size=4k";
/** Added to each bind mount on Podman (the workspace slot): Docker's API has no word for them. */
export const PODMAN_BIND_OPTIONS = "noexec,nosuid,nodev";

/** The spec as this engine needs it said: unchanged on Docker. */
export function adaptSpec(
  spec: ContainerCreateOptions,
  flavour: EngineFlavour,
): ContainerCreateOptions {
  if (flavour.product !== "podman") return spec;
  const host = spec.HostConfig ?? {};
  const ulimits = [...(host.Ulimits ?? [])];
  // Rootless Podman takes the user's own current limits, which need no raise.
  if (!flavour.rootless && !ulimits.some((u) => u.Name === "nproc")) {
    ulimits.push({ Name: "nproc", Soft: PODMAN_NPROC_RLIMIT, Hard: PODMAN_NPROC_RLIMIT });
  }
  const tmpfs: Record<string, string> = { ...(host.Tmpfs ?? {}) };
  for (const place of PODMAN_READ_ONLY_TMPFS) tmpfs[place] ??= CLOSED_TMPFS;
  // Podman takes mount options Docker refuses: the workspace slot is noexec there too.
  const binds = [
    ...(host.Binds ?? []),
    ...(host.Mounts ?? []).map(
      (mount) => `${mount.Source}:${mount.Target}:rw,${PODMAN_BIND_OPTIONS}`,
    ),
  ];
  return {
    ...spec,
    HostConfig: { ...host, Ulimits: ulimits, Tmpfs: tmpfs, Binds: binds, Mounts: [] },
  };
}

/** What /info says of the runtimes. */
export interface EngineInfoRuntimes {
  Runtimes?: Record<string, unknown> | null;
  DefaultRuntime?: string;
}

/**
 * The runtimes a Podman engine really runs a container under. Its Docker-compatible API ignores
 * the runtime a create names (the container runs under the engine's default, runc asked or
 * runsc), and its /info lists every runtime its configuration knows, installed or not. So only
 * the default counts: gVisor on Podman is `runtime = "runsc"` in its containers.conf.
 */
export function podmanRuntimes(info: EngineInfoRuntimes): string[] {
  return [info.DefaultRuntime ?? "runc"];
}

/** Linux's exit status of a process ended by SIGKILL (128 + 9). */
export const SIGKILL_EXIT_STATUS = 137;

/**
 * Whether a container that ended by itself was killed for memory. Docker says so (OOMKilled);
 * Podman with conmon on cgroup v1 never does, so there a SIGKILL the host did not send (it
 * reads the exit only of a container that ended before the run was stopped) is taken as the
 * memory limit's. Code that kills itself with SIGKILL reads the same way: that only mislabels
 * its own end.
 */
export function memoryKilled(
  state: { OOMKilled?: boolean; ExitCode?: number },
  flavour: EngineFlavour | null,
): boolean {
  if (state.OOMKilled === true) return true;
  return flavour?.product === "podman" && state.ExitCode === SIGKILL_EXIT_STATUS;
}

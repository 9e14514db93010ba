import { currentProcessPlace, type ProcessPlace } from "../../util/process-place.js";

/**
 * Who started a sandbox container, written into its labels so a later start-up sweep can
 * tell leftovers of a crashed host from containers someone is still using. A pid alone
 * means nothing across pid namespaces (dev containers, CI runners sharing one engine), so
 * the labels also say which host, which boot and which pid namespace the pid belongs to.
 */
export interface ContainerOwner extends ProcessPlace {
  /** The install's random id (see install-id.ts): only an install's own containers are swept. */
  install: string;
}

/** This process as the owner of the containers it starts for `install`. */
export function currentOwner(install: string): ContainerOwner {
  return { install, ...currentProcessPlace() };
}

/** What a container's labels say about its owner; fields a label lacks are undefined. */
export type LabelledOwner = { [K in keyof ContainerOwner]: ContainerOwner[K] | undefined };

/**
 * Whether the owner of a container of this install is provably gone, seen from `self`.
 * Anything we cannot prove is left alone: a leftover costs a little memory until its host
 * comes back, while removing a live one breaks someone's run.
 * - another host: we cannot see its processes;
 * - the same host, another boot: every process of that boot is gone;
 * - the same host and boot, another pid namespace: its pids are not ours to look up;
 * - the same host, boot and namespace: gone when its pid is not alive.
 */
export function ownerGone(
  owner: LabelledOwner,
  self: ContainerOwner,
  isAlive: (pid: number) => boolean,
): boolean {
  if (owner.install !== self.install) return false;
  if (owner.host === undefined || owner.host !== self.host) return false;
  if (owner.boot === undefined) return false;
  // Both boots known and different: that boot is over. An unknown boot proves nothing.
  if (owner.boot !== self.boot) return owner.boot !== "" && self.boot !== "";
  if (owner.pidns === undefined || owner.pidns !== self.pidns) return false;
  const pid = owner.pid;
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === self.pid) return false;
  return !isAlive(pid);
}

/** Whether a container's labels name exactly this process of this install as its owner. */
export function ownedBySelf(owner: LabelledOwner, self: ContainerOwner): boolean {
  return (
    owner.install === self.install &&
    owner.host === self.host &&
    owner.boot === self.boot &&
    owner.pidns === self.pidns &&
    owner.pid === self.pid
  );
}

// The start-up sweep removes only this install's leftovers whose owner is
// provably gone. Containers are made with the labels each kind of owner would give them
// (created, never started: the labels are all the sweep looks at), then one real sweep runs.

import { spawn, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip } from "../../../test-support/docker.js";
import { pidAlive } from "../util/process-place.js";
import { currentOwner, type ContainerOwner } from "./containers/container-owner.js";
import { OWNER_LABELS, sandboxContainerSpec } from "./containers/container-spec.js";
import { sweepOrphanContainers } from "./sandbox.js";

const fx = await dockerOrSkip();

const ours = randomBytes(16).toString("hex");
const theirs = randomBytes(16).toString("hex");
const third = randomBytes(16).toString("hex");
const self = currentOwner(ours);

/** A pid that was ours a moment ago and is dead now. */
function deadPid(): number {
  const pid = spawnSync("true").pid;
  if (pid === undefined || pidAlive(pid)) throw new Error("could not find a dead pid");
  return pid;
}

async function labelled(owner: ContainerOwner): Promise<string> {
  const container = await fx!.docker.createContainer(
    sandboxContainerSpec(fx!.image, randomUUID(), owner),
  );
  return container.id;
}

async function exists(id: string): Promise<boolean> {
  return fx!.docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

afterAll(async () => {
  if (!fx) return;
  for (const install of [ours, theirs, third]) {
    const list = await fx.docker.listContainers({
      all: true,
      filters: { label: [`${OWNER_LABELS.install}=${install}`] },
    });
    for (const info of list) {
      await fx.docker
        .getContainer(info.Id)
        .remove({ force: true })
        .catch(() => undefined);
    }
  }
});

describe.skipIf(!fx)("the start-up sweep", () => {
  it("removes only this install's containers whose owner is provably gone", async () => {
    const live = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      const cases = {
        ownDeadOwner: await labelled({ ...self, pid: deadPid() }),
        ownOtherBoot: await labelled({ ...self, boot: randomUUID(), pid: deadPid() }),
        ownLiveOwner: await labelled({ ...self, pid: live.pid! }),
        ownThisProcess: await labelled(self),
        otherInstall: await labelled({ ...self, install: theirs, pid: deadPid() }),
        // Another dev container on the same engine, sharing the data directory: its pid
        // means nothing here, dead as it looks from this namespace.
        otherPidNamespace: await labelled({ ...self, pidns: "pid:[1]", pid: deadPid() }),
        otherHost: await labelled({ ...self, host: `${self.host}-other`, pid: deadPid() }),
        unknownBoot: await labelled({ ...self, boot: "", pid: deadPid() }),
      };
      const removed = await sweepOrphanContainers(fx!.engine, self);
      const left = Object.fromEntries(
        await Promise.all(
          Object.entries(cases).map(async ([name, id]) => [name, await exists(id)] as const),
        ),
      );
      expect(left).toEqual({
        ownDeadOwner: false,
        ownOtherBoot: false,
        ownLiveOwner: true,
        ownThisProcess: true,
        otherInstall: true,
        otherPidNamespace: true,
        otherHost: true,
        unknownBoot: true,
      });
      expect(removed).toBe(2);
    } finally {
      live.kill("SIGKILL");
    }
  });

  it("leaves containers whose labels are missing or odd", async () => {
    // An install of its own: the first test's containers are not part of this one.
    const owner = currentOwner(third);
    const id = await labelled({ ...owner, pid: deadPid() });
    const odd = await fx!.docker.createContainer({
      ...sandboxContainerSpec(fx!.image, randomUUID(), owner),
      Labels: { "codemode.sandbox": "1", [OWNER_LABELS.install]: third, [OWNER_LABELS.pid]: "x" },
    });
    expect(await sweepOrphanContainers(fx!.engine, owner)).toBe(1);
    expect(await exists(id)).toBe(false);
    expect(await exists(odd.id)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { currentOwner, ownerGone, type ContainerOwner } from "./container-owner.js";

const self: ContainerOwner = {
  install: "a".repeat(32),
  host: "laptop",
  boot: "boot-1",
  pidns: "pid:[4026531836]",
  pid: 100,
};
const dead = (): boolean => false;
const alive = (): boolean => true;

describe("ownerGone", () => {
  it("is true only for this install, host, boot and pid namespace with a dead pid", () => {
    expect(ownerGone({ ...self, pid: 200 }, self, dead)).toBe(true);
    expect(ownerGone({ ...self, pid: 200 }, self, alive)).toBe(false);
    expect(ownerGone(self, self, dead)).toBe(false);
  });

  it("is true for another boot of this host, whatever its pid", () => {
    expect(ownerGone({ ...self, boot: "boot-0", pid: 200 }, self, alive)).toBe(true);
  });

  it("proves nothing about another install, host or pid namespace, or an unknown boot", () => {
    expect(ownerGone({ ...self, install: "b".repeat(32), pid: 200 }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, host: "ci-runner", pid: 200 }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, pidns: "pid:[1]", pid: 200 }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, boot: "", pid: 200 }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, boot: "boot-0" }, { ...self, boot: "" }, dead)).toBe(false);
  });

  it("proves nothing from missing labels (containers of older versions)", () => {
    const none = { install: self.install, host: undefined, boot: undefined, pidns: undefined };
    expect(ownerGone({ ...none, pid: 200 }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, pid: undefined }, self, dead)).toBe(false);
    expect(ownerGone({ ...self, pid: -1 }, self, dead)).toBe(false);
  });
});

describe("currentOwner", () => {
  it("names this process, its host, boot and pid namespace", () => {
    const owner = currentOwner("x");
    expect(owner).toMatchObject({ install: "x", pid: process.pid });
    expect(owner.host).not.toBe("");
    if (process.platform === "linux") {
      expect(owner.boot).toMatch(/^[0-9a-f-]{36}$/);
      expect(owner.pidns).toMatch(/^pid:\[\d+\]$/);
    }
  });
});

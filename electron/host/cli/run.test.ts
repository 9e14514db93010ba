import { describe, expect, it } from "vitest";
import { memoryIO } from "../../../test-support/cli-io.js";
import { run } from "./run.js";

describe("codemode CLI", () => {
  it("--help lists the subcommands", async () => {
    const m = memoryIO();
    expect(await run(["--help"], m.io)).toBe(0);
    expect(m.out()).toMatch(/^ {2}run +/m);
    expect(m.out()).toMatch(/^ {2}image +/m);
    expect(m.out()).toContain("CODEMODE_HOME");
  });

  it("an unknown command is named and the help shown", async () => {
    const m = memoryIO();
    expect(await run(["frobnicate"], m.io)).toBe(2);
    expect(m.err()).toContain('unknown command "frobnicate"');
  });

  it("run says which socket it tried and how to start Docker when Docker is not reachable", async () => {
    const m = memoryIO({ DOCKER_HOST: "unix:///nonexistent/docker.sock" }, "print(1)");
    expect(await run(["run", "-"], m.io)).toBe(1);
    const message = m.err().trim();
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain("unix:///nonexistent/docker.sock");
    expect(message).toMatch(/Start Docker/);
  });

  it("run names a file it cannot read in one line, not a stack trace", async () => {
    for (const args of [["missing.py"], ["--stdin", "missing.txt", "-"]]) {
      const m = memoryIO({}, "print(1)");
      expect(await run(["run", ...args], m.io)).toBe(1);
      const missing = args.find((a) => a.startsWith("missing"));
      expect(m.err()).toBe(`codemode run: cannot read ${missing}: no such file\n`);
    }
  });

  it("run refuses a timeout that is not a positive number, naming it", async () => {
    const m = memoryIO({}, "print(1)");
    expect(await run(["run", "--timeout", "soon", "-"], m.io)).toBe(1);
    expect(m.err()).toContain('--timeout takes a positive number of seconds, not "soon"');
  });
});

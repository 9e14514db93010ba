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

  it("run says which socket it tried and how to start Docker when Docker is not reachable (exit 5)", async () => {
    const m = memoryIO({ DOCKER_HOST: "unix:///nonexistent/docker.sock" }, "print(1)");
    expect(await run(["run", "-"], m.io)).toBe(5);
    const message = m.err().trim();
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain("unix:///nonexistent/docker.sock");
    expect(message).toMatch(/Start Docker/);
  });

  it("run names a file it cannot read in one line, not a stack trace (exit 2)", async () => {
    for (const args of [["missing.py"], ["--stdin", "missing.txt", "-"]]) {
      const m = memoryIO({}, "print(1)");
      expect(await run(["run", ...args], m.io)).toBe(2);
      const missing = args.find((a) => a.startsWith("missing"));
      expect(m.err()).toBe(`codemode run: cannot read ${missing}: no such file\n`);
    }
  });

  it("run refuses a timeout that is not a positive number, naming it (exit 2)", async () => {
    const m = memoryIO({}, "print(1)");
    expect(await run(["run", "--timeout", "soon", "-"], m.io)).toBe(2);
    expect(m.err()).toContain('--timeout takes a positive number of seconds, not "soon"');
  });

  it("run's usage errors exit 2: an unknown option, no FILE, two FILEs", async () => {
    for (const args of [["--frobnicate", "-"], [], ["a.py", "b.py"], ["--runtime", "kata", "-"]]) {
      const m = memoryIO({}, "print(1)");
      expect(await run(["run", ...args], m.io), args.join(" ")).toBe(2);
      expect(m.err()).toMatch(/^codemode run: .+\n$/);
    }
  });

  it("run --help gives the exit codes", async () => {
    const m = memoryIO();
    expect(await run(["run", "--help"], m.io)).toBe(0);
    expect(m.out()).toContain("Exit status:");
    expect(m.out()).toContain("3  the run was stopped at its deadline");
  });
});

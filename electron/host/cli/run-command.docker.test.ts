import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../../shared/run-result.js";
import { dockerOnRuntimes, leftoverContainers } from "../../../test-support/docker.js";
import { startRuncOnlyEngine } from "../../../test-support/runc-only-engine.js";
import { removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";
import { memoryIO } from "../../../test-support/cli-io.js";
import { run } from "./run.js";
import { requireImage } from "./sandbox-context.js";

const { fx, runtimes } = await dockerOnRuntimes();

// Skipped only outside CI when no engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("codemode run on real Docker", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-cli-"));

  it("prints the run result as JSON, also when the code raised (exit 1)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-run-"));
    const file = path.join(dir, "prog.py");
    const stdinFile = path.join(dir, "in.txt");
    writeFileSync(file, "import sys\nprint(sys.stdin.read().strip())\nraise RuntimeError('late')");
    writeFileSync(stdinFile, "fed\n");
    const m = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["run", "--timeout", "30", "--stdin", stdinFile, file], m.io)).toBe(1);
    const result = JSON.parse(m.out()) as Record<string, unknown>;
    expect(Object.keys(result).sort()).toEqual([
      "calls",
      "duration_ms",
      "error",
      "exception",
      "exit_code",
      "images",
      "stderr",
      "stdout",
      "stopped",
      "timed_out",
      "truncated",
    ]);
    expect(result.stdout).toBe("fed\n");
    expect(result.error).toContain("RuntimeError: late");
    // What it raised, as data: no need to read it out of the traceback.
    expect(result.exception).toEqual({ type: "RuntimeError", message: "late" });
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("--images saves the attached figures as PNG files, never over an existing one", async () => {
    const dir = tempDir("codemode-run-images-");
    const file = path.join(dir, "plot.py");
    const out = path.join(dir, "out");
    writeFileSync(file, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()");
    mkdirSync(out);
    writeFileSync(path.join(out, "figure-1.png"), "taken");
    const m = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["run", "--images", out, file], m.io)).toBe(0);
    const result = JSON.parse(m.out()) as RunResult;
    expect(result.images.map((i) => i.name)).toEqual(["figure-1.png"]);
    expect(readFileSync(path.join(out, "figure-1.png"), "utf8")).toBe("taken");
    const saved = readFileSync(path.join(out, "figure-1-2.png"));
    expect(createHash("sha256").update(saved).digest("hex")).toBe(result.images[0]!.sha256);
    expect(m.err()).toContain(`saved ${path.join(out, "figure-1-2.png")}`);
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("--timeout lowers the deadline; a run stopped there exits 3", async () => {
    const m = memoryIO({ CODEMODE_HOME: home }, "while True:\n    pass");
    expect(await run(["run", "--timeout", "1", "-"], m.io)).toBe(3);
    expect(JSON.parse(m.out())).toMatchObject({ stopped: "deadline", timed_out: true });
  });

  it.skipIf(!runtimes.includes("runsc"))("--runtime runsc runs the code on gVisor", async () => {
    const m = memoryIO({ CODEMODE_HOME: home }, "import os\nprint(os.uname().release)");
    expect(await run(["run", "--runtime", "runsc", "-"], m.io)).toBe(0);
    // gVisor's own kernel reports 4.4.0 whatever the host runs.
    expect(JSON.parse(m.out())).toMatchObject({ stdout: "4.4.0\n", error: null });
    const runc = memoryIO({ CODEMODE_HOME: home }, "import os\nprint(os.uname().release)");
    expect(await run(["run", "--runtime", "runc", "-"], runc.io)).toBe(0);
    expect(JSON.parse(runc.out())).toMatchObject({ stdout: `${os.release()}\n` });
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it.skipIf(!runtimes.includes("runsc"))(
    "without --runtime the app's saved Isolation setting applies; --runtime wins over it",
    async () => {
      const strong = tempDir("codemode-cli-strong-");
      writeFileSync(path.join(strong, "settings.json"), '{"sandboxRuntime":"runsc"}', {
        mode: 0o600,
      });
      const code = "import os\nprint(os.uname().release)";
      const saved = memoryIO({ CODEMODE_HOME: strong }, code);
      expect(await run(["run", "-"], saved.io)).toBe(0);
      expect(JSON.parse(saved.out())).toMatchObject({ stdout: "4.4.0\n", error: null });
      const flag = memoryIO({ CODEMODE_HOME: strong }, code);
      expect(await run(["run", "--runtime", "runc", "-"], flag.io)).toBe(0);
      expect(JSON.parse(flag.out())).toMatchObject({ stdout: `${os.release()}\n` });
      // A settings file the app could not use either leaves its default, and says so.
      writeFileSync(path.join(strong, "settings.json"), "{not json", { mode: 0o600 });
      const broken = memoryIO({ CODEMODE_HOME: strong }, code);
      expect(await run(["run", "-"], broken.io)).toBe(0);
      expect(JSON.parse(broken.out())).toMatchObject({ stdout: `${os.release()}\n` });
      expect(broken.err()).toContain(
        "codemode run: settings.json is not valid JSON; using the default runtime runc",
      );
      expect(await leftoverContainers(fx!.docker)).toEqual([]);
    },
  );

  it("--runtime the engine lacks, on run and serve, is an error naming the ones it has", async () => {
    const engine = await startRuncOnlyEngine();
    try {
      for (const argv of [
        ["run", "--runtime", "runsc", "-"],
        ["serve", "--runtime", "runsc", "--", "node", "-e", "0"],
      ]) {
        const m = memoryIO({ CODEMODE_HOME: home, DOCKER_HOST: engine.dockerHost }, "print(1)");
        // `run` exits 5 when it cannot start the run (RUN_EXIT.unavailable).
        expect(await run(argv, m.io)).toBe(argv[0] === "run" ? 5 : 1);
        expect(m.err()).toContain(
          `codemode ${argv[0]}: --runtime runsc: the Docker engine at ${engine.dockerHost} has no runtime "runsc"; it has: runc.`,
        );
      }
      // Not asked for on the command line but saved in the app: the error says where it came from.
      const strong = tempDir("codemode-cli-strong-");
      writeFileSync(path.join(strong, "settings.json"), '{"sandboxRuntime":"runsc"}', {
        mode: 0o600,
      });
      for (const argv of [
        ["run", "-"],
        ["serve", "--", "node", "-e", "0"],
      ]) {
        const m = memoryIO({ CODEMODE_HOME: strong, DOCKER_HOST: engine.dockerHost }, "print(1)");
        expect(await run(argv, m.io)).toBe(argv[0] === "run" ? 5 : 1);
        expect(m.err()).toContain(
          `codemode ${argv[0]}: the app's Isolation setting (sandboxRuntime runsc in settings.json): the Docker engine at ${engine.dockerHost} has no runtime "runsc"; it has: runc.`,
        );
        expect(m.err()).toContain("Choose another with --runtime");
      }
    } finally {
      await engine.close();
    }
    const bad = memoryIO({ CODEMODE_HOME: home }, "print(1)");
    expect(await run(["run", "--runtime", "kata", "-"], bad.io)).toBe(2);
    expect(bad.err()).toContain('--runtime takes runc or runsc, not "kata"');
  });

  it("image build is quick when the image is current, and image status says what it is", async () => {
    const build = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["image", "build"], build.io)).toBe(0);
    expect(build.out().trim()).toBe(fx!.image);
    // Not a terminal: the progress bar prints plain lines ending at 100%.
    expect(build.err()).toMatch(/\[#+\] 100% done/);

    const status = memoryIO({ CODEMODE_HOME: home });
    expect(await run(["image", "status"], status.io)).toBe(0);
    const text = status.out();
    expect(text).toContain(`tag:      ${fx!.image}`);
    expect(text).toContain("current:  yes");
    expect(text).toMatch(/size: +\d+ MiB/);
    expect(text).toMatch(/created: +\d{4}-\d{2}-\d{2}T/);
    expect(text).toMatch(/python: +3\.13\./);
    expect(text).toMatch(
      /libraries: numpy \S+, pandas \S+, matplotlib \S+, PIL \S+, yaml \S+, jinja2 \S+/,
    );
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("a missing image gets a one-line message saying how to build it", async () => {
    await expect(
      requireImage({
        engine: fx!.engine,
        tag: "codemode-sandbox:000000000000",
      } as Parameters<typeof requireImage>[0]),
    ).rejects.toThrow(/codemode image build/);
  });

  afterAll(() => removeTempDirs());
});

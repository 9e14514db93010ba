import type Dockerode from "dockerode";
import os from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RUN_LIMITS, SANDBOX_LIMITS } from "../../../shared/limits.js";
import {
  dockerOnRuntimes,
  enginesUnderTest,
  leftoverContainers,
  testOwner,
} from "../../../test-support/docker.js";
import { PODMAN_NPROC_RLIMIT } from "./container-engine/podman-quirks.js";
import { SandboxContainer } from "./containers/sandbox-container.js";
import { Sandbox, sweepOrphanContainers } from "./sandbox.js";

// Every hardening test runs on runc and on gVisor's runsc, on the machine's Docker and on
// Podman's Docker-compatible service (rootful, as these tests run as root). Under CI=true a
// missing engine, runsc or podman fails the file; elsewhere what is missing is skipped, saying so.
//
// Where Podman says the same limit another way, the test says so (podman-quirks.ts):
// - it reports the runtime as "oci" and runs every container under its default runtime, so the
//   runtime is checked through its own API (OCIRuntime), and gVisor is its runsc service;
// - it reports IpcMode "none" as "shareable", yet mounts no /dev/shm (checked below), and
//   CapDrop ALL as the list of its default capabilities;
// - it never reports OOMKilled (conmon, cgroup v1): a SIGKILL the host did not send is taken as
//   the memory limit's (memoryKilled);
// - it names ulimits RLIMIT_*, and the spec adds RLIMIT_NPROC (rootful Podman raises it to
//   1048576 otherwise, which an engine without CAP_SYS_RESOURCE cannot);
// - it adds /run and /var/tmp as tmpfs on a read-only root: the spec makes them read-only and
//   noexec.
// Rootless Podman (not run here: the tests run as root) differs more: its compatible API drops
// the spec's ulimits (nofile falls back to the user's own limit) and, on cgroup v1, MemorySwap.
const docker = await dockerOnRuntimes();
const engines = await enginesUnderTest(docker);
const owner = testOwner();

describe.skipIf(!docker.fx).each(engines)(
  "sandbox on $engine, runtime $runtime",
  ({ engine, runtime, fx }) => {
    let sandbox: Sandbox;
    const gvisor = runtime === "runsc";
    const onPodman = engine === "podman";

    beforeAll(() => {
      sandbox = new Sandbox({ engine: fx.engine, image: fx.image, owner, poolSize: 1, runtime });
    });

    afterEach(async () => {
      await sandbox.settle();
    });

    afterAll(async () => {
      await sandbox.close();
      expect(await leftoverContainers(fx.docker)).toEqual([]);
    });

    const run = (code: string, deadlineSeconds?: number, stdin?: string) =>
      sandbox.run({ code, deadlineSeconds, stdin });

    it("runs code with top-level await and captures stdout and stderr apart", async () => {
      const result = await run(
        "import asyncio, sys\nawait asyncio.sleep(0)\nprint('out')\nprint('err', file=sys.stderr)",
      );
      expect(result).toMatchObject({ stdout: "out\n", stderr: "err\n", error: null, exit_code: 0 });
      expect(result.stopped).toBeNull();
    });

    it("reports an exception as the last lines of its traceback, as a normal result", async () => {
      const result = await run("def f():\n    raise ValueError('boom')\nf()");
      expect(result.exit_code).toBe(1);
      expect(result.error).toContain("ValueError: boom");
      expect(result.error).toContain("<code>");
      expect(result.error).not.toContain("runner.py");
    });

    it("a huge exception message is still a normal error, cut to its tail", async () => {
      const result = await run("raise ValueError('x' * 500_000 + 'END')");
      expect(result.stopped).toBeNull();
      expect(result.exit_code).toBe(1);
      expect(result.error?.endsWith("END")).toBe(true);
      expect(result.error!.length).toBeLessThanOrEqual(RUN_LIMITS.errorMaxChars);
      // Its message as data is cut at its end: what the summary shows is how it starts.
      expect(result.exception?.type).toBe("ValueError");
      expect(result.exception?.message).toBe("x".repeat(RUN_LIMITS.errorMaxChars));
    });

    it("reports what the code raised as its type and message, not the caret line", async () => {
      // Python 3.13 puts a line of carets under the failing call, just before the last line.
      const result = await run("import asyncio\nfoo()");
      expect(result.error).toMatch(/\^\^\^/);
      expect(result.exception).toEqual({
        type: "NameError",
        message: "name 'foo' is not defined",
      });
      const syntax = await run("def f(:\n    pass");
      expect(syntax.exception?.type).toBe("SyntaxError");
      expect(syntax.exception?.message).toMatch(/\(line 1\)$/);
      // A message whose __str__ raises still names the type; exit(3) raised no exception.
      const hostile = await run(
        "class E(Exception):\n    def __str__(self):\n        raise RuntimeError()\nraise E()",
      );
      expect(hostile.exception).toEqual({ type: "E", message: "" });
      const exited = await run("import sys\nsys.exit(3)");
      expect(exited.exit_code).toBe(1);
      expect(exited.exception).toBeUndefined();
    });

    it("gives the code its stdin text", async () => {
      const result = await run("print(input().upper())", undefined, "hello\n");
      expect(result.stdout).toBe("HELLO\n");
    });

    it("no host secret or environment is inside", async () => {
      process.env.CODEMODE_TEST_SECRET = "hunter2-host-secret";
      try {
        const result = await run(
          [
            "import os, json",
            "env = dict(os.environ)",
            "print(json.dumps(sorted(env)))",
            "print('hunter2' in json.dumps(env))",
            "print(os.path.exists('/var/run/docker.sock'), os.path.exists('/run/docker.sock'))",
            "print(any('hunter2' in open(f'/proc/{p}/environ', 'rb').read().decode(errors='replace') for p in os.listdir('/proc') if p.isdigit()))",
          ].join("\n"),
        );
        const [names, leaked, sockets, procLeak] = result.stdout.trim().split("\n");
        const envNames = JSON.parse(names ?? "[]") as string[];
        expect(envNames).not.toContain("CODEMODE_TEST_SECRET");
        expect(envNames).not.toContain("DOCKER_HOST");
        expect(leaked).toBe("False");
        expect(sockets).toBe("False False");
        expect(procLeak).toBe("False");
      } finally {
        delete process.env.CODEMODE_TEST_SECRET;
      }
    });

    it("the container has no mounts, no network, and every limit set", async () => {
      const container = await SandboxContainer.start(fx.engine, fx.image, owner, runtime);
      try {
        const info = await fx.docker.getContainer(container.id).inspect();
        expect(info.Mounts).toEqual([]);
        const host = info.HostConfig;
        if (onPodman) {
          expect(host.Runtime).toBe("oci");
          expect(await podmanRuntimeOf(container, fx.docker)).toBe(runtime);
        } else expect(host.Runtime).toBe(runtime);
        expect(host.NetworkMode).toBe("none");
        expect(host.IpcMode).toBe(onPodman ? "shareable" : "none");
        expect(host.ReadonlyRootfs).toBe(true);
        expect(host.Privileged).toBe(false);
        // Podman lists what ALL took away from its defaults; the code holds none either way
        // ("the code is not root and holds no capabilities" reads them inside).
        if (onPodman) expect(host.CapAdd ?? []).toEqual([]);
        else expect(host.CapDrop).toEqual(["ALL"]);
        expect(host.SecurityOpt).toEqual(["no-new-privileges"]);
        expect(host.PidsLimit).toBe(SANDBOX_LIMITS.pids);
        expect(host.Memory).toBe(SANDBOX_LIMITS.memoryBytes);
        expect(host.MemorySwap).toBe(SANDBOX_LIMITS.memorySwapBytes);
        expect(host.NanoCpus).toBe(SANDBOX_LIMITS.nanoCpus);
        const tmp = `${SANDBOX_LIMITS.tmpfsOptions},size=${SANDBOX_LIMITS.tmpfsBytes}`;
        if (onPodman) {
          expect(host.Ulimits).toEqual([
            { Name: "RLIMIT_NOFILE", Soft: SANDBOX_LIMITS.nofile, Hard: SANDBOX_LIMITS.nofile },
            { Name: "RLIMIT_NPROC", Soft: PODMAN_NPROC_RLIMIT, Hard: PODMAN_NPROC_RLIMIT },
          ]);
          // Podman appends its own mount options (rprivate, tmpcopyup).
          expect(host.Tmpfs?.["/tmp"]?.startsWith(tmp)).toBe(true);
          expect(host.Tmpfs?.["/run"]).toMatch(/^ro,noexec,nosuid,nodev,/);
          expect(host.Tmpfs?.["/var/tmp"]).toMatch(/^ro,noexec,nosuid,nodev,/);
        } else {
          expect(host.Ulimits).toEqual([
            { Name: "nofile", Soft: SANDBOX_LIMITS.nofile, Hard: SANDBOX_LIMITS.nofile },
          ]);
          expect(host.Tmpfs).toEqual({ "/tmp": tmp });
        }
        expect(info.Config.User).toBe(SANDBOX_LIMITS.user);
      } finally {
        await container.remove();
      }
    });

    it("the code sees the runtime's kernel: gVisor's own, or the host's under runc", async () => {
      const result = await run("import os\nprint(os.uname().release)");
      // gVisor's user-space kernel reports release 4.4.0, whatever the host runs: the sign that
      // the code's system calls reach gVisor, not the host kernel.
      expect(result.stdout).toBe(`${gvisor ? "4.4.0" : os.release()}\n`);
    });

    it("there is no network: socket connect and DNS fail", async () => {
      const result = await run(
        [
          "import socket",
          "try:",
          "    socket.create_connection(('1.1.1.1', 53), timeout=2); print('connected')",
          "except OSError as e: print('connect failed')",
          "try:",
          "    socket.getaddrinfo('example.com', 80); print('resolved')",
          "except OSError as e: print('dns failed')",
          "print(sorted(n for _, n in socket.if_nameindex()))",
        ].join("\n"),
      );
      expect(result.stdout).toBe("connect failed\ndns failed\n['lo']\n");
    });

    it("the root filesystem is read-only and /tmp cannot execute", async () => {
      const result = await run(
        [
          "import os, subprocess",
          "for path in ('/opt/codemode/x', '/etc/x', '/x', '/run/x', '/var/tmp/x'):",
          "    try:",
          "        open(path, 'w'); print('wrote', path)",
          "    except OSError as e: print('refused')",
          "open('/tmp/ok.txt', 'w').write('fine'); print(open('/tmp/ok.txt').read())",
          "open('/tmp/run.sh', 'w').write('#!/bin/sh\\necho ran\\n'); os.chmod('/tmp/run.sh', 0o755)",
          "try:",
          "    subprocess.run(['/tmp/run.sh'], capture_output=True); print('executed')",
          "except PermissionError: print('exec refused')",
          "try:",
          "    open('/tmp/big', 'wb').write(b'0' * (17 * 1024 * 1024)); print('17 MiB fit')",
          "except OSError: print('tmp full')",
          "print([l.split()[3] for l in open('/proc/mounts') if l.split()[1] == '/tmp'])",
        ].join("\n"),
      );
      const lines = result.stdout.trim().split("\n");
      expect(lines.slice(0, 8)).toEqual([
        "refused",
        "refused",
        "refused",
        "refused",
        "refused",
        "fine",
        "exec refused",
        "tmp full",
      ]);
      expect(lines[8]).toMatch(/noexec/);
      // gVisor's /proc/mounts lists only rw,noexec,size for the tmpfs: its own kernel does not
      // report nosuid and nodev. Neither can be used there anyway: no_new_privs (checked below)
      // makes a setuid bit inert, and with no capability the code cannot make a device node.
      if (!gvisor) {
        expect(lines[8]).toMatch(/nosuid/);
        expect(lines[8]).toMatch(/nodev/);
      }
    });

    it("there is no usable /dev/shm", async () => {
      const result = await run(
        "import os\nprint(os.path.exists('/dev/shm'))\ntry:\n    import multiprocessing.shared_memory as s; s.SharedMemory(create=True, size=1024); print('shm works')\nexcept Exception as e: print('shm refused')",
      );
      // gVisor always mounts its own /dev/shm, inside its own kernel (IpcMode none cannot take it
      // away); it is not the host's, and the code, not root, may not create in it.
      expect(result.stdout).toBe(`${gvisor ? "True" : "False"}\nshm refused\n`);
    });

    it("the code is not root and holds no capabilities", async () => {
      const result = await run(
        [
          "import ctypes, os",
          "print(os.getuid(), os.getgid())",
          "status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)",
          // gVisor's /proc/self/status has no NoNewPrivs line: ask the kernel (PR_GET_NO_NEW_PRIVS).
          "print(status['CapEff'].strip(), status['CapBnd'].strip(), ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))",
          "import subprocess",
          // The image is the same on both runtimes, and a walk of it under gVisor's ptrace
          // platform takes ~8 s: its setuid files are looked for under runc only.
          gvisor
            ? "print('no setuid')"
            : "print(subprocess.run(['find', '/', '-xdev', '-perm', '/6000', '-type', 'f'], capture_output=True, text=True).stdout.strip() or 'no setuid')",
        ].join("\n"),
      );
      expect(result.stdout).toBe("65534 65534\n0000000000000000 0000000000000000 1\nno setuid\n");
    });

    it("open files are capped", async () => {
      const result = await run(
        "fs = []\ntry:\n    for i in range(1000): fs.append(open('/dev/null'))\nexcept OSError: pass\nprint(len(fs) < " +
          SANDBOX_LIMITS.nofile +
          ")",
      );
      expect(result.stdout).toBe("True\n");
    });

    it("runaway code ends within the deadline: fork bomb", async () => {
      const result = await run(
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        5,
      );
      if (gvisor) {
        // Under gVisor's ptrace platform every task of the code is a host process of the
        // sandbox, counted against PidsLimit: the bomb ends the whole sandbox (exit status 2
        // here) before the deadline, rather than spinning until it.
        expect(result.stopped).toBeNull();
        expect(result.exit_code).not.toBe(0);
        expect(result.error).toContain("the sandbox ended without finishing the run");
      } else {
        expect(result.stopped).toBe("deadline");
        expect(result.timed_out).toBe(true);
      }
      expect(result.duration_ms).toBeLessThan(5_000 + 3_000);
    });

    it("runaway code ends within the deadline: 1 GiB allocation", async () => {
      const result = await run("x = b'a' * (1024 ** 3)\nprint(len(x))", 20);
      expect(result.stdout).toBe("");
      expect(result.stopped === "memory" || (result.error ?? "").includes("MemoryError")).toBe(
        true,
      );
      expect(result.duration_ms).toBeLessThan(20_000);
    });

    it("runaway code ends within the deadline: endless loop", async () => {
      const result = await run("while True:\n    pass", 2);
      expect(result).toMatchObject({ stopped: "deadline", timed_out: true, exit_code: null });
      expect(result.duration_ms).toBeGreaterThanOrEqual(2_000);
      expect(result.duration_ms).toBeLessThan(2_000 + 3_000);
    });

    it("after runaway code the next run starts fresh", async () => {
      await run("open('/tmp/left-behind', 'w').write('x')\nwhile True:\n    pass", 1);
      const result = await run("import os\nprint(os.path.exists('/tmp/left-behind'))");
      expect(result.stdout).toBe("False\n");
    });

    it("output is capped and the kept part marked truncated", async () => {
      const result = await run("for i in range(2000):\n    print('line', i)");
      expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(RUN_LIMITS.stdoutKeptBytes);
      expect(result.stdout.startsWith("line 0\nline 1\n")).toBe(true);
      expect(result).toMatchObject({ truncated: true, stopped: null, error: null });
    });

    it("a run that writes 1 MiB is stopped", async () => {
      const result = await run("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)");
      expect(result.stopped).toBe("output_limit");
      expect(result.truncated).toBe(true);
    });

    it("plain output cannot forge a protocol message", async () => {
      const forged = JSON.stringify({ type: "call", id: 1, tool: "steal", args: {} });
      const result = await run(
        [
          "import os, subprocess",
          `print(${JSON.stringify(forged)})`,
          'print(\'{"type": "done", "error": null}\')',
          `os.write(1, ${JSON.stringify(forged + "\n")}.encode())`,
          `os.write(2, ${JSON.stringify(forged + "\n")}.encode())`,
          `subprocess.run(['echo', ${JSON.stringify(forged)}])`,
          "print('still running')",
        ].join("\n"),
      );
      expect(result.calls).toBe(0);
      expect(result.error).toBeNull();
      expect(result.stdout).toBe(`${forged}\n{"type": "done", "error": null}\nstill running\n`);
    });

    const writeToEveryFd = (payload: string): string =>
      [
        "import os",
        "for fd in range(3, 64):",
        "    try:",
        `        os.write(fd, ${payload})`,
        "    except OSError:",
        "        pass",
        "import time; time.sleep(5)",
      ].join("\n");

    it("garbage on the protocol pipe ends the run safely", async () => {
      for (const payload of [
        "b'this is not json\\n'",
        'b\'{"type": "launch", "id": 1}\\n\'',
        'b\'{"type": "call", "id": 1, "tool": "x", "args": {}, "extra": 1}\\n\'',
        "b'x' * (200 * 1024)",
      ]) {
        // Under gVisor one write of this size to the pipe reached the host only when the
        // sandbox ended (measured: 200 KiB written, then 12 s asleep: seen at 12.9 s), so there
        // the run ends when the code does, still well within the deadline: the code sleeps 1 s
        // instead of 5, to keep the test short.
        const late = gvisor && payload.includes("200 * 1024");
        const code = writeToEveryFd(payload);
        const result = await run(late ? code.replace("time.sleep(5)", "time.sleep(1)") : code, 20);
        expect(result.stopped, payload).toBe("protocol_violation");
        expect(result.duration_ms).toBeLessThan(late ? 1_000 + 3_000 : 5_000);
      }
    });

    it("a forged call is just a call: with no tools it is refused", async () => {
      const result = await run(
        writeToEveryFd(`b'{"type": "call", "id": 99, "tool": "steal", "args": {}}\\n'`).replace(
          "import time; time.sleep(5)",
          "print('ok')",
        ),
      );
      expect(result.calls).toBe(1);
      expect(result.stopped).toBeNull();
    });

    it("a cancelled run is stopped and its container removed", async () => {
      const controller = new AbortController();
      const pending = sandbox.run({ code: "while True:\n    pass" }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 500);
      const result = await pending;
      expect(result.stopped).toBe("cancelled");
      await sandbox.settle();
      const running = await leftoverContainers(fx.docker);
      // Only the warm container may remain.
      expect(running.length).toBeLessThanOrEqual(1);
    });

    it("sweeping removes containers whose host is gone, not live ones", async () => {
      const orphan = await SandboxContainer.start(
        fx.engine,
        fx.image,
        { ...owner, pid: 999_999 },
        runtime,
      );
      const removed = await sweepOrphanContainers(fx.engine, owner, (pid) => pid !== 999_999);
      expect(removed).toBe(1);
      expect(await orphan.container.inspect()).toBeNull();
    });

    it("no container is left behind", async () => {
      await sandbox.settle();
      // The warm one only; close() in afterAll removes it and checks for zero.
      expect((await leftoverContainers(fx.docker)).length).toBeLessThanOrEqual(1);
    });
  },
);

/** The OCI runtime Podman runs a container under (its own API: the compatible one says "oci"). */
async function podmanRuntimeOf(container: SandboxContainer, docker: Dockerode): Promise<string> {
  const modem = (
    docker as unknown as {
      modem: { dial: (o: object, cb: (e: unknown, d: unknown) => void) => void };
    }
  ).modem;
  const info = await new Promise<{ OCIRuntime?: string }>((resolve, reject) =>
    modem.dial(
      {
        path: `/v4.0.0/libpod/containers/${container.id}/json`,
        method: "GET",
        statusCodes: { 200: true },
      },
      (error, data) =>
        error
          ? reject(error instanceof Error ? error : new Error("libpod inspect failed"))
          : resolve(data as { OCIRuntime?: string }),
    ),
  );
  return info.OCIRuntime ?? "?";
}

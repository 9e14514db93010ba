// Named workspaces on real containers, warm and on each runtime: what a run leaves in
// /workspace (files and save()d values) is there for the next run of the same client and name,
// never for another client's; a run over the size limit loses nothing; a run without one has
// no /workspace; a file a run attaches comes back byte for byte.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachRuntime, dockerOnRuntimes } from "../../../../test-support/docker.js";
import { removeTempDirs } from "../../../../test-support/temp-dir.js";
import { workspaceSandbox } from "../../../../test-support/workspace-sandbox.js";
import type { CallOutcome, RunFileData } from "../../core/ports/run-types.js";
import { freezeTools } from "../../core/ports/tools-json.js";
import { sandboxWorkspace } from "../../core/engine/run-workspace.js";
import type { Sandbox } from "../sandbox.js";
import type { WorkspaceLimits, WorkspaceStore } from "./workspace-store.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;
const MiB = 1024 * 1024;
const PING = freezeTools([
  { name: "ping", stub: "async def ping() -> str: ...", description: "pong", schema: null },
]);

afterAll(() => removeTempDirs());

describeEachRuntime(docker, "workspaces on %s", (runtime) => {
  let sandbox: Sandbox;
  let store: WorkspaceStore;
  let close = (): Promise<void> => Promise.resolve();
  const limits: WorkspaceLimits = { maxBytes: 300 * MiB, perClient: 10, keepDays: 7 };

  beforeAll(async () => {
    ({ sandbox, store, close } = await workspaceSandbox(fx!, runtime, limits, "cm-wsrun-"));
  });

  afterAll(() => close());

  /** One run of `client` with its workspace `name`, as the engine makes it. */
  async function run(client: string, name: string | null, code: string, withPing = false) {
    const files: RunFileData[] = [];
    const tools = withPing ? PING : undefined;
    const onCall = (): Promise<CallOutcome> => Promise.resolve({ ok: true, value: "pong" });
    if (name === null) return { result: await sandbox.run({ code, tools }, { onCall }), files };
    const session = await store.open(client, name);
    const workspace = sandboxWorkspace(session, () => false);
    try {
      const result = await sandbox.run(
        { code, workspace, tools },
        { onFile: (f) => files.push(f), onCall },
      );
      return { result, files };
    } finally {
      await session.release();
    }
  }

  it("keeps files for the same client and name, apart from another client's", async () => {
    const first = await run(
      "alice",
      "notes",
      "open('/workspace/a.txt','w').write('alice 1')\nprint(WORKSPACE)",
    );
    expect(first.result.error).toBeNull();
    expect(first.result.stdout).toBe("notes\n");
    expect(first.result.workspace).toMatchObject({ name: "notes", kept: true, files: 1 });
    const again = await run("alice", "notes", "print(open('/workspace/a.txt').read())");
    expect(again.result.stdout).toBe("alice 1\n");
    const other = await run("bob", "notes", "import os\nprint(sorted(os.listdir('/workspace')))");
    expect(other.result.stdout).toBe("[]\n");
  });

  it("a run without a workspace has no /workspace, and save() says how to get one", async () => {
    const { result } = await run(
      "alice",
      null,
      "import os\nprint(os.path.exists('/workspace'))\nsave('x', 1)",
    );
    expect(result.stdout).toBe("False\n");
    expect(result.error).toContain("WorkspaceError");
    expect(result.error).toContain('workspace="NAME"');
  });

  it("a run without a workspace cannot write into its container's slot", async () => {
    const { result } = await run(
      "alice",
      null,
      "import os\ntry:\n    open('/codemode-slot/x','w')\nexcept PermissionError:\n    print('refused')\nprint(os.listdir('/codemode-slot'))",
    );
    expect(result.stdout).toBe("refused\n[]\n");
  });

  it("a run past the size limit fails naming it, and the workspace keeps what it held", async () => {
    await run("alice", "small", "open('/workspace/keep.txt','w').write('before')");
    limits.maxBytes = 1 * MiB;
    try {
      const over = await run(
        "alice",
        "small",
        "open('/workspace/keep.txt','w').write('after')\nopen('/workspace/big','wb').write(b'x' * (3 * 1024 * 1024))",
      );
      expect(over.result.error).toContain('"small"');
      expect(over.result.error).toContain("1 MiB");
      expect(over.result.workspace?.kept).toBe(false);
    } finally {
      limits.maxBytes = 300 * MiB;
    }
    const after = await run(
      "alice",
      "small",
      "import os\nprint(open('/workspace/keep.txt').read(), sorted(os.listdir('/workspace')))",
    );
    expect(after.result.stdout).toBe("before ['keep.txt']\n");
  });

  it("save() and load() keep a DataFrame between runs", async () => {
    // 6,250,000 rows of two 8-byte columns: 100 MB.
    const rows = 6_250_000;
    const saved = await run(
      "alice",
      "frames",
      `import pandas as pd, numpy as np\ndf = pd.DataFrame({'a': np.arange(${rows}, dtype='int64'), 'b': np.ones(${rows})})\nsave('df', df)\nprint(df.memory_usage(index=False).sum())`,
    );
    expect(saved.result.error).toBeNull();
    expect(Number(saved.result.stdout)).toBe(rows * 16);
    const loaded = await run(
      "alice",
      "frames",
      "df = load('df')\nprint(len(df), int(df['a'].sum()))",
    );
    expect(loaded.result.error).toBeNull();
    expect(loaded.result.stdout).toBe(`${rows} ${(rows * (rows - 1)) / 2}\n`);
    const missing = await run("alice", "frames", "load('nope')");
    expect(missing.result.error).toContain("nothing is saved as 'nope'");
  }, 180_000);

  it("attach() hands a file back byte for byte", async () => {
    const { result, files } = await run(
      "alice",
      "notes",
      "import os\ndata = bytes(range(256)) * 1000\nopen('/workspace/out.bin','wb').write(data)\nattach('/workspace/out.bin')",
    );
    expect(result.error).toBeNull();
    expect(files).toHaveLength(1);
    const expected = Buffer.alloc(256_000, 0).map((_, i) => i % 256);
    expect(files[0]!.data.equals(expected)).toBe(true);
    expect(files[0]!.sha256).toBe(createHash("sha256").update(expected).digest("hex"));
    expect(files[0]!.mimeType).toBe("application/octet-stream");
  });

  it("show() of a file that is not an image attaches it as a file", async () => {
    const { result, files } = await run(
      "alice",
      "notes",
      "open('/workspace/totals.csv','w').write('region,total\\nnorth,3\\n')\nprint(show('/workspace/totals.csv'))",
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("totals.csv\n");
    expect(files.map((f) => [f.name, f.mimeType, f.data.toString()])).toEqual([
      ["totals.csv", "text/csv", "region,total\nnorth,3\n"],
    ]);
  });

  // runc: Landlock refuses the exec; runsc: the runner's seccomp filter keeps the mode from
  // ever carrying an execute bit (docs/security.md).
  it("a program written to /workspace cannot be run, however its mode is set", async () => {
    const { result } = await run(
      "alice",
      "notes",
      [
        "import os, posix, shutil, subprocess",
        "program = open('/bin/true', 'rb').read()",
        "def made(path, how):",
        "    try:",
        "        how(path)",
        "    except OSError as error:",
        "        return 'not made (%s)' % type(error).__name__",
        "    try:",
        "        subprocess.run([path], check=True)",
        "        return 'ran'",
        "    except PermissionError:",
        "        return 'refused'",
        "def copied(path):",
        "    shutil.copy('/bin/true', path)",
        "    os.chmod(path, 0o755)",
        "def opened(path, open_=os.open):",
        "    fd = open_(path, os.O_CREAT | os.O_WRONLY, 0o755)",
        "    os.write(fd, program)",
        "    os.fchmod(fd, 0o755)",
        "    os.close(fd)",
        "def opened_raw(path):",
        "    opened(path, posix.open)",
        "def at_dir(path):",
        "    folder = os.open('/workspace', os.O_RDONLY)",
        "    fd = posix.open(os.path.basename(path), os.O_CREAT | os.O_WRONLY, 0o700, dir_fd=folder)",
        "    os.write(fd, program)",
        "    os.close(fd)",
        "    os.chmod(os.path.basename(path), 0o700, dir_fd=folder)",
        "for name, how in [('copied', copied), ('opened', opened), ('raw', opened_raw), ('at', at_dir)]:",
        "    print(name, made('/workspace/' + name, how))",
      ].join("\n"),
    );
    expect(result.error).toBeNull();
    const lines = result.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(" ")[0])).toEqual(["copied", "opened", "raw", "at"]);
    for (const line of lines) expect(line).toMatch(/ (refused|not made \(PermissionError\))$/);
  });

  // gVisor checks a seccomp filter before a tracer's syscall-entry stop and not again after
  // it (Linux checks again): a tracer could turn an allowed chmod into one with execute bits,
  // so under the filter ptrace is refused. The rewrite is written for x86_64's registers.
  it("a traced child cannot have its chmod changed to set an execute bit", async () => {
    const regs = "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs";
    const { result } = await run(
      "alice",
      "notes",
      [
        "import ctypes, os, platform, shutil, signal, subprocess",
        "path = '/workspace/traced'",
        "shutil.copy('/bin/true', path)",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "class Regs(ctypes.Structure):",
        `    _fields_ = [(n, ctypes.c_ulonglong) for n in '${regs} eflags rsp ss fs_base gs_base ds es fs gs'.split()]`,
        "x86 = platform.machine() == 'x86_64'",
        "pid = os.fork()",
        "if pid == 0:",
        "    traced = libc.ptrace(0, 0, 0, 0) == 0",
        "    if traced:",
        "        os.kill(os.getpid(), signal.SIGSTOP)",
        "    os.chmod(path, 0o644)",
        "    os._exit(0 if traced else 1)",
        "status = os.waitpid(pid, 0)[1]",
        "while not os.WIFEXITED(status):",
        "    r = Regs()",
        "    if x86 and libc.ptrace(12, pid, 0, ctypes.byref(r)) == 0:",
        "        if r.rax == 2**64 - 38 and r.orig_rax in (90, 268, 452):",
        "            setattr(r, 'rsi' if r.orig_rax == 90 else 'rdx', 0o755)",
        "            libc.ptrace(13, pid, 0, ctypes.byref(r))",
        "    libc.ptrace(24, pid, 0, 0)",
        "    status = os.waitpid(pid, 0)[1]",
        "print('traced' if os.WEXITSTATUS(status) == 0 else 'not traced')",
        "if x86:",
        "    try:",
        "        subprocess.run([path], check=True)",
        "        print('ran')",
        "    except PermissionError:",
        "        print('refused')",
      ].join("\n"),
    );
    expect(result.error).toBeNull();
    const [traced, ran] = result.stdout.trim().split("\n");
    expect(traced).toBe(runtime === "runsc" ? "not traced" : "traced");
    if (ran !== undefined) expect(ran).toBe("refused");
  });

  // The runner's reader thread exists before the code runs: the guard must hold in it too,
  // or code that makes that thread run a function of its own gets around it.
  it("a program in /workspace cannot be run from the runner's own reader thread", async () => {
    const { result } = await run(
      "alice",
      "notes",
      [
        "import os, shutil, subprocess",
        "runner = show.__func__.__globals__",
        "plain = runner['_parse_line']",
        "seen = []",
        "def hijacked(line):",
        "    try:",
        "        shutil.copy('/bin/true', '/workspace/r')",
        "        os.chmod('/workspace/r', 0o755)",
        "        subprocess.run(['/workspace/r'], check=True)",
        "        seen.append('ran')",
        "    except PermissionError:",
        "        seen.append('refused')",
        "    return plain(line)",
        "runner['_parse_line'] = hijacked",
        "await ping()",
        "print(seen)",
      ].join("\n"),
      true,
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("['refused']\n");
  });

  it("the no-exec guard leaves a data analyst's file work as it was", async () => {
    const { result } = await run(
      "alice",
      "analysis",
      [
        "import os, shutil, sqlite3",
        "os.makedirs('/workspace/data/raw', exist_ok=True)",
        "fd = os.open('/workspace/data/raw/a.csv', os.O_CREAT | os.O_WRONLY)",
        "os.write(fd, b'x,y\\n1,2\\n')",
        "os.close(fd)",
        "shutil.copytree('/workspace/data', '/workspace/copy')",
        "db = sqlite3.connect('/workspace/copy/db.sqlite')",
        "db.execute('create table t (x)')",
        "db.commit()",
        "print(sorted(os.listdir('/workspace/copy/raw')), open('/workspace/copy/raw/a.csv').read().split())",
      ].join("\n"),
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe("['a.csv'] ['x,y', '1,2']\n");
  });
});

// What a named workspace costs a warm run, side by side in one process: one warm pool, runs of
// `print(1)` taking a ready container each time, without a workspace and with an empty, a
// 10 MiB and a 200 MiB one (each run opens the workspace and has its files put in the
// container's slot, as the engine does). Two figures per workspace: the latency a client sees
// (from its request to the answer, which comes once the code has ended; what the run left is
// kept after, once the container has stopped), and the next run of the same workspace started
// right after that answer, which waits for that keep (the workspace is held until it is done):
// what back-to-back runs of one workspace pay. Then a run that reads one 1 MiB file of the
// 200 MiB workspace, against the same read from the 10 MiB one, and from a 200 MiB workspace of
// 10 files: a run pays for what it reads and per file put in place, not for the workspace's bytes.
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sandboxWorkspace } from "../electron/host/core/engine/run-workspace.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SlotRoot } from "../electron/host/sandbox/workspaces/workspace-slots.js";
import { WorkspaceStore } from "../electron/host/sandbox/workspaces/workspace-store.js";
import { benchEngine } from "./bench-engine.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const POOL = 2;
const MiB = 1024 * 1024;
const CLIENT = "bench";
const PRINT = "print(1)";
const READ_ONE = "print(len(open('/workspace/f000.bin','rb').read(1 << 20)))";

async function main(): Promise<void> {
  const { engine, image, owner } = await benchEngine();
  const root = await mkdtemp(path.join(os.tmpdir(), "cm-bench-ws-"));
  const store = new WorkspaceStore(path.join(root, "workspaces"), () => ({
    maxBytes: 1024 * MiB,
    perClient: 10,
    keepDays: 7,
  }));
  const slots = new SlotRoot(path.join(root, "slots"));
  const sandbox = new Sandbox({
    engine,
    image,
    owner,
    poolSize: POOL,
    slots,
    deadlineSeconds: 120,
  });

  /** Makes workspace `name` hold `count` files of `mib` MiB, written as a run would leave them. */
  const make = async (name: string, count: number, mib = 1): Promise<void> => {
    const session = await store.open(CLIENT, name);
    const slot = await slots.create();
    try {
      slots.open(slot);
      await session.fill(slot);
      mkdirSync(slot.workspace, { recursive: true });
      for (let i = 0; i < count; i++) {
        const file = path.join(slot.workspace, `f${String(i).padStart(3, "0")}.bin`);
        writeFileSync(file, Buffer.alloc(mib * MiB, i % 256));
      }
      const settled = await session.settle(slot, { finished: true, privateData: false });
      if (settled.problem !== null) throw new Error(settled.problem);
    } finally {
      await session.release();
      await slots.release(slot);
    }
  };

  /** A warm pool of two: the second run of a back-to-back pair takes a warm container too. */
  const poolReady = async (): Promise<void> => {
    if ((await sandbox.poolFilled()) < POOL) throw new Error("the pool did not fill");
  };

  /**
   * One warm run, from its request (the workspace's open) to its answer; then, untimed, what
   * is left: the engine gives the workspace back without waiting, once the keep is done.
   */
  const answered = async (
    name: string | null,
    code: string,
  ): Promise<{ ms: number; kept: Promise<void> }> => {
    const started = performance.now();
    if (name === null) {
      const result = await sandbox.run({ code });
      if (result.error !== null) throw new Error(result.error);
      return { ms: performance.now() - started, kept: Promise.resolve() };
    }
    const session = await store.open(CLIENT, name);
    const workspace = sandboxWorkspace(session, () => false);
    const result = await sandbox.run({ code, workspace }).catch(async (error: unknown) => {
      await session.release();
      throw error;
    });
    const kept = session.release();
    if (result.error !== null) throw new Error(result.error);
    return { ms: performance.now() - started, kept };
  };

  /** The latency of one warm run; its keep done before the next is measured. */
  const timed = async (name: string | null, code: string): Promise<number> => {
    await poolReady();
    const { ms, kept } = await answered(name, code);
    await kept;
    await sandbox.settle();
    return ms;
  };

  /** The second of two runs of `name`, asked for as soon as the first is answered. */
  const backToBack = async (name: string | null): Promise<number> => {
    await poolReady();
    const first = await answered(name, PRINT);
    const second = await answered(name, PRINT);
    await Promise.all([first.kept, second.kept]);
    await sandbox.settle();
    return second.ms;
  };

  try {
    await make("empty", 0);
    await make("ten", 10);
    await make("big", 200);
    await make("wide", 10, 20);
    const cases = {
      none: [] as number[],
      empty: [] as number[],
      ten: [] as number[],
      big: [] as number[],
      nextNone: [] as number[],
      nextTen: [] as number[],
      nextBig: [] as number[],
      readTen: [] as number[],
      readBig: [] as number[],
      readWide: [] as number[],
    };
    // One warm-up round, not counted: the first runs page the image in.
    for (let round = -1; round < ROUNDS; round++) {
      const keep = (list: number[], ms: number): void => {
        if (round >= 0) list.push(ms);
      };
      keep(cases.none, await timed(null, PRINT));
      keep(cases.empty, await timed("empty", PRINT));
      keep(cases.ten, await timed("ten", PRINT));
      keep(cases.big, await timed("big", PRINT));
      keep(cases.nextNone, await backToBack(null));
      keep(cases.nextTen, await backToBack("ten"));
      keep(cases.nextBig, await backToBack("big"));
      keep(cases.readTen, await timed("ten", READ_ONE));
      keep(cases.readBig, await timed("big", READ_ONE));
      keep(cases.readWide, await timed("wide", READ_ONE));
    }
    const none = median(cases.none);
    const rounds = `median of ${ROUNDS} warm runs, interleaved`;
    const without = "the same warm run without a workspace";
    const latency = "request to answer; kept after the answer";
    report({
      what: "warm `print(1)` with an empty workspace",
      value: median(cases.empty),
      baseline: none,
      baselineWhat: without,
      note: `${rounds}; ${latency}`,
    });
    report({
      what: "warm `print(1)` with a 10 MiB workspace (10 files)",
      value: median(cases.ten),
      baseline: none,
      baselineWhat: without,
      note: `${rounds}; ${latency}; goal within 2x`,
    });
    report({
      what: "warm `print(1)` with a 200 MiB workspace (200 files)",
      value: median(cases.big),
      baseline: none,
      baselineWhat: without,
      note: `${rounds}; ${latency}`,
    });
    const nextWithout = "the same pair of warm runs without a workspace";
    const waits = "the second run waits for the first's keep";
    report({
      what: "warm `print(1)` with a 10 MiB workspace, asked for as soon as the run before it on the same workspace was answered",
      value: median(cases.nextTen),
      baseline: median(cases.nextNone),
      baselineWhat: nextWithout,
      note: `${rounds}; ${waits}`,
    });
    report({
      what: "warm `print(1)` with a 200 MiB workspace, asked for as soon as the run before it on the same workspace was answered",
      value: median(cases.nextBig),
      baseline: median(cases.nextNone),
      baselineWhat: nextWithout,
      note: `${rounds}; ${waits}`,
    });
    report({
      what: "warm run reading one 1 MiB file of a 200 MiB workspace",
      value: median(cases.readBig),
      baseline: median(cases.readTen),
      baselineWhat: "the same read from a 10 MiB workspace",
      note: `${rounds}; goal: pays for what it reads, not the whole`,
    });
    report({
      what: "warm run reading 1 MiB of a 200 MiB workspace in 10 files of 20 MiB",
      value: median(cases.readWide),
      baseline: median(cases.readTen),
      baselineWhat: "the same read from a 10 MiB workspace in 10 files",
      note: `${rounds}; the same files, 20 times the bytes: a run pays per file put in place, not per byte`,
    });
  } finally {
    await sandbox.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();

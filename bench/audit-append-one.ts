// What one tool call's audit entry costs the host when entries come one at a time, as in a loop
// of sequential calls: each append is written and made durable (synced, as the app runs) before
// the next is made. Wall time and the host's CPU time (process.cpuUsage, both the event loop and
// libuv's thread pool, where the write and the sync run) per append, against the same appends
// to a log that does not sync, in the same rounds.
// With CODEMODE_BEFORE_CHECKOUT set to another checkout (e.g. a `git worktree add` of an older
// main, with node_modules), its AuditLog runs as one more side in the same rounds:
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/audit-append-one.ts
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type * as AuditLogModule from "../electron/host/audit/audit-log.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "../test-support/audit-fixtures.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const APPENDS = Number(process.env.BENCH_APPENDS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

type Log = typeof AuditLog;
interface Round {
  wall: number;
  cpu: number;
}

/** Per append, in ms, over one round of APPENDS into a fresh log. */
async function round(Log: Log, fsync: boolean): Promise<Round> {
  const root = await mkdtemp(path.join(os.tmpdir(), "codemode-bench-append-"));
  try {
    const log = await Log.open({ dir: path.join(root, "audit"), fsync });
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < APPENDS; i += 1) await log.append(callInput(i));
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await log.close();
    return { wall: wall / APPENDS, cpu: (used.user + used.system) / 1000 / APPENDS };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  const Before: Log | null = beforeDir
    ? (
        (await import(
          pathToFileURL(path.join(path.resolve(beforeDir), "electron/host/audit/audit-log.ts")).href
        )) as typeof AuditLogModule
      ).AuditLog
    : null;
  const sides = { synced: [] as Round[], unsynced: [] as Round[], before: [] as Round[] };
  for (let r = 0; r < ROUNDS; r++) {
    sides.synced.push(await round(AuditLog, true));
    sides.unsynced.push(await round(AuditLog, false));
    if (Before !== null) sides.before.push(await round(Before, true));
  }
  const wall = (side: Round[]): number => median(side.map((s) => s.wall));
  const cpu = (side: Round[]): number => median(side.map((s) => s.cpu));
  const note = (side: Round[]): string =>
    `median of ${ROUNDS} rounds of ${APPENDS}; host CPU per append ${cpu(sides.synced).toFixed(3)} ms ` +
    `vs ${cpu(side).toFixed(3)} ms (${(cpu(sides.synced) / cpu(side)).toFixed(2)}x)`;
  const what = "one audit entry appended and synced, one at a time (a loop of calls), wall time";
  report({
    what,
    value: wall(sides.synced),
    baseline: wall(sides.unsynced),
    baselineWhat: "the same appends to a log that does not sync",
    note: note(sides.unsynced),
  });
  if (Before !== null) {
    report({
      what,
      value: wall(sides.synced),
      baseline: wall(sides.before),
      baselineWhat: "the same in the before checkout",
      note: note(sides.before),
    });
  }
}

await main();

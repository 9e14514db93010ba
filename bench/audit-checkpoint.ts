// What keeping the audit head outside the log costs an append. The same appends,
// synced as the app does, to a log without a checkpoint and to one with it, alternated in one
// run so both see the same disk: one at a time (each waits for its sync; long enough for the
// checkpoint to be written more than once) and 2,000 at once.
//
//   npx tsx bench/audit-checkpoint.ts

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "../test-support/audit-fixtures.js";
import { median, row } from "./stats.js";

const ROUNDS = 3;
const SEQUENTIAL = 3000;
const CONCURRENT = 2000;

async function once(withCheckpoint: boolean): Promise<{ sequential: number; concurrent: number }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "codemode-bench-ckpt-"));
  try {
    const log = await AuditLog.open({
      dir: path.join(root, "audit"),
      checkpoint: withCheckpoint ? { file: path.join(root, "audit-checkpoint.json") } : undefined,
    });
    let started = performance.now();
    for (let i = 0; i < SEQUENTIAL; i += 1) await log.append(callInput(i));
    const sequential = performance.now() - started;
    started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => log.append(callInput(i))));
    const concurrent = performance.now() - started;
    await log.close();
    return { sequential, concurrent };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const without: { sequential: number[]; concurrent: number[] } = { sequential: [], concurrent: [] };
const withIt: { sequential: number[]; concurrent: number[] } = { sequential: [], concurrent: [] };
await once(false);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [runs, flag] of [
    [without, false],
    [withIt, true],
  ] as const) {
    const r = await once(flag);
    runs.sequential.push(r.sequential);
    runs.concurrent.push(r.concurrent);
  }
}

const seqBase = median(without.sequential);
const conBase = median(without.concurrent);
console.log(`\naudit appends, fsync on, median of ${ROUNDS} rounds`);
const note = `median of ${ROUNDS} rounds, alternated`;
const noCheckpoint = "the same appends to a log without the checkpoint";
console.log(
  `baseline, no checkpoint: one at a time ${seqBase.toFixed(0)} ms, at once ${conBase.toFixed(0)} ms`,
);
console.log(
  row(
    `${SEQUENTIAL} audit appends one at a time (fsync each), with the head checkpoint`,
    median(withIt.sequential),
    seqBase,
    noCheckpoint,
    note,
  ),
);
console.log(
  row(
    `${CONCURRENT} audit appends at once (fsync), with the head checkpoint`,
    median(withIt.concurrent),
    conBase,
    noCheckpoint,
    note,
  ),
);

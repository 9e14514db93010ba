// The Audit page's queries on a million-entry log, by scanning the log (as without the index)
// and through the index, side by side in one run, with the host's memory. The log is written
// through the real AuditLog, syncing off.
//
//   npx tsx bench/audit-index.ts            (1,000,000 entries; ~2 minutes to write here)
//   AUDIT_BENCH_ENTRIES=100000 npx tsx bench/audit-index.ts
//   CODEMODE_BENCH_AUDIT_DIR=/some/dir ...  keeps the log there between runs

import { rm } from "node:fs/promises";
import path from "node:path";
import type { AuditFilter, AuditPage } from "../shared/audit-query-types.js";
import { INDEX_DIR } from "../electron/host/audit/audit-index-store.js";
import { AuditIndex } from "../electron/host/audit/audit-index.js";
import { getAuditRun, queryAudit } from "../electron/host/audit/audit-query.js";
import { verifyAudit } from "../electron/host/audit/audit-verify.js";
import { verifyPerLine } from "./audit-verify-before.js";
import { benchAuditLog } from "./audit-index-log.js";
import { median } from "./stats.js";
import { report } from "./report.js";

const ENTRIES = Number(process.env.AUDIT_BENCH_ENTRIES ?? 1_000_000);
const ROUNDS = 3;
/**
 * A side whose first round takes longer than this gets that one round: the scans of the whole
 * log take seconds each, their spread is tight, and the ratio is orders of magnitude.
 */
const ONE_ROUND_PAST_MS = 1_000;
const MiB = 1024 * 1024;

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
    if (round === 0 && times[0]! > ONE_ROUND_PAST_MS) break;
  }
  return median(times);
}

function line(label: string, before: number, after: number): string {
  return `${label.padEnd(46)} ${before.toFixed(0).padStart(7)} ms ${after.toFixed(0).padStart(7)} ms   ${(after / before).toFixed(3)}x`;
}

const started = performance.now();
const { dir, remove } = await benchAuditLog(ENTRIES);
console.log(
  `\naudit log of ${ENTRIES.toLocaleString("en")} entries ready in ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
try {
  // The first start with no saved index reads the whole log once.
  await rm(path.join(dir, INDEX_DIR), { recursive: true, force: true });
  const buildMs = await (async () => {
    const index = new AuditIndex(dir, (error) => {
      throw error;
    });
    const t0 = performance.now();
    await index.refresh();
    const ms = performance.now() - t0;
    await index.save();
    return ms;
  })();
  const rssBuilt = process.memoryUsage().rss;
  // A later start reads the saved index instead.
  const loaded = new AuditIndex(dir, (error) => {
    throw error;
  });
  const t = performance.now();
  await loaded.refresh();
  const loadMs = performance.now() - t;
  if (loaded.stats.rebuilt !== 0) throw new Error("the saved index was not used");

  const query = (filter: AuditFilter, page: AuditPage, ix: AuditIndex | null) => () =>
    queryAudit(dir, filter, page, ix);
  const second = await queryAudit(dir, {}, { limit: 100 });
  const deep = Math.floor(ENTRIES / 2);
  const oldRun = "run-5";
  const cases: [string, (ix: AuditIndex | null) => () => Promise<unknown>][] = [
    ["first page (100)", (ix) => query({}, { limit: 100 }, ix)],
    ["next page", (ix) => query({}, { limit: 100, before: second.nextBefore ?? 0 }, ix)],
    [
      `page at seq ${deep.toLocaleString("en")}`,
      (ix) => query({}, { limit: 100, before: deep }, ix),
    ],
    ["text, 1 match (oldest entries)", (ix) => query({ text: 'City 7"' }, { limit: 100 }, ix)],
    ["text, no match", (ix) => query({ text: "no such text" }, { limit: 100 }, ix)],
    ["text, common", (ix) => query({ text: "needle in a" }, { limit: 100 }, ix)],
    ["client (common)", (ix) => query({ client: "cursor" }, { limit: 100 }, ix)],
    ["client, no match", (ix) => query({ client: "nobody" }, { limit: 100 }, ix)],
    ["server, no match", (ix) => query({ server: "nobody" }, { limit: 100 }, ix)],
    ["tool, no match", (ix) => query({ tool: "nobody" }, { limit: 100 }, ix)],
    [
      "client+server+tool+decision",
      (ix) =>
        query(
          { client: "claude", server: "mail", tool: "mail__tool_2", decision: "failed" },
          { limit: 100 },
          ix,
        ),
    ],
    ["decision, 1000 newest", (ix) => query({ decision: "failed" }, { limit: 1000 }, ix)],
    [`audit.run of an old run (${oldRun})`, (ix) => () => getAuditRun(dir, oldRun, ix)],
  ];

  console.log(`${"".padEnd(46)} ${"scan".padStart(10)} ${"index".padStart(10)}`);
  for (const [label, make] of cases) {
    const before = await timed(make(null));
    const after = await timed(make(loaded));
    console.log(line(label, before, after));
    report({
      what: `Audit page query on ${ENTRIES.toLocaleString("en")} entries, through the index: ${label}`,
      value: after,
      baseline: before,
      baselineWhat: "the same query scanning the log (before the index)",
      note: `median of ${ROUNDS} (1 round of a scan over ${ONE_ROUND_PAST_MS / 1000} s)`,
    });
  }
  // Verify is a scan by nature (every line hashed, parsed and checked). The machine is shared, so
  // this process's CPU time is printed beside the wall time.
  const cpuMs = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const measure = async (run: () => Promise<unknown>) => {
    const wall = performance.now();
    const cpu = cpuMs();
    await run();
    return { wall: performance.now() - wall, cpu: cpuMs() - cpu };
  };
  const verifyBefore = await measure(() => verifyPerLine(dir));
  let progressEvents = 0;
  let peakRss = 0;
  const verifyAfter = await measure(async () => {
    const result = await verifyAudit(dir, {
      onProgress: () => {
        progressEvents += 1;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      },
    });
    if (!result.ok) throw new Error("verify failed on the bench log");
  });
  console.log(line("verify, wall time", verifyBefore.wall, verifyAfter.wall));
  console.log(line("verify, CPU time of this process", verifyBefore.cpu, verifyAfter.cpu));
  report({
    what: `\`codemode audit verify\` of ${ENTRIES.toLocaleString("en")} entries, wall time`,
    value: verifyAfter.wall,
    baseline: verifyBefore.wall,
    baselineWhat: "the per-line reader verify used before",
    note: `host RSS up to ${mib(peakRss)}`,
  });
  report({
    what: `\`codemode audit verify\` of ${ENTRIES.toLocaleString("en")} entries, CPU time of the host process`,
    value: verifyAfter.cpu,
    baseline: verifyBefore.cpu,
    baselineWhat: "the per-line reader verify used before",
  });
  console.log(
    `verify: ${progressEvents} progress reports; host RSS up to ${mib(peakRss)} while verifying`,
  );
  console.log(
    `index: built from the log in ${(buildMs / 1000).toFixed(1)} s, loaded from beside it in ${loadMs.toFixed(0)} ms; ` +
      `${mib(loaded.memoryBytes)} in memory; host RSS ${mib(rssBuilt)} after building, ` +
      `${mib(process.memoryUsage().rss)} now`,
  );
} finally {
  await remove();
}

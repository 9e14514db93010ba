// What the audit log does to every entry before queueing it (audit-entry-prepare.ts: secrets
// scrubbed from every text, long texts cut, the schema checked), for the entry of one tool call,
// the one the log takes most often. Measured with three secrets configured (one API key per
// server, as the app's saved servers have them) against the same entry with none, in the same
// rounds: the difference is what the secret scan costs each call.
// With CODEMODE_BEFORE_CHECKOUT set to another checkout (e.g. a `git worktree add` of an older
// main, with node_modules), its prepareEntry runs as a third side in the same rounds, so a change
// is measured before and after in one run:
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/audit-entry-prepare.ts
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AuditEntryInput } from "../shared/audit-entry.js";
import type * as PrepareModule from "../electron/host/audit/audit-entry-prepare.js";
import { prepareEntry } from "../electron/host/audit/audit-entry-prepare.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

/** A call entry as AuditRecorder makes it for the toy echo tool. */
const ENTRY: AuditEntryInput = {
  kind: "call",
  runId: "0b6f1d0e-3c1a-4f57-9a52-7d1c2f0e8a11",
  client: "claude-desktop",
  server: "notes",
  tool: "notes__echo",
  serverTool: "echo",
  decision: "allowed",
  reason: null,
  detail: null,
  argBytes: 12,
  args: '{"text":"x"}',
  resultBytes: 1,
  resultHash: "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
  durationMs: 0.4,
  private: false,
};
const SECRETS = ["notes", "mail", "calendar"].map((server) => `sk-${server}-4f9a1c77d2e04b8b`);

type Prepare = typeof prepareEntry;

/** Microseconds per entry over one round of ENTRIES. */
function round(prepare: Prepare, secrets: readonly string[]): number {
  const started = performance.now();
  for (let i = 0; i < ENTRIES; i++) prepare(ENTRY, secrets);
  return ((performance.now() - started) / ENTRIES) * 1000;
}

async function main(): Promise<void> {
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  const before: Prepare | null = beforeDir
    ? (
        (await import(
          pathToFileURL(
            path.join(path.resolve(beforeDir), "electron/host/audit/audit-entry-prepare.ts"),
          ).href
        )) as typeof PrepareModule
      ).prepareEntry
    : null;
  // Both versions must give the same entry, or the figures compare different work.
  if (before !== null) {
    const [a, b] = [prepareEntry(ENTRY, SECRETS), before(ENTRY, SECRETS)];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("the two checkouts differ");
  }
  const sides = { secrets: [] as number[], none: [] as number[], before: [] as number[] };
  // A first round of each warms the JIT; rounds alternate so load weighs on every side alike.
  round(prepareEntry, SECRETS);
  round(prepareEntry, []);
  if (before !== null) round(before, SECRETS);
  for (let r = 0; r < ROUNDS; r++) {
    sides.secrets.push(round(prepareEntry, SECRETS));
    sides.none.push(round(prepareEntry, []));
    if (before !== null) sides.before.push(round(before, SECRETS));
  }
  const note = `median of ${ROUNDS} rounds of ${ENTRIES} entries, microseconds per entry`;
  report({
    what: "preparing a tool call's audit entry, 3 secrets configured",
    value: median(sides.secrets),
    unit: "us",
    baseline: median(sides.none),
    baselineWhat: "the same entry with no secret configured",
    note,
  });
  if (before !== null) {
    report({
      what: "preparing a tool call's audit entry, 3 secrets configured",
      value: median(sides.secrets),
      unit: "us",
      baseline: median(sides.before),
      baselineWhat: "the same in the before checkout",
      note,
    });
  }
}

await main();

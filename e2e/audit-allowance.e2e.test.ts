// A call that reached a server is always in the audit log. Each test runs the attack for real:
// `codemode daemon` as a process on its own home, the toy server wrapped (it writes every call it
// receives to TOY_CALL_LOG), a real MCP client over the shim, real Docker running the hostile
// code. The code fills its run's audit allowance with refused calls to a made-up tool, then
// gathers real sends while crossing it; every send the server received must have its entry.

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntryOf } from "../shared/audit-entry.js";
import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../shared/limits.js";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { callLog, PY_PRELUDE } from "../test-support/serve-client.js";
import { until } from "../test-support/wait.js";

const fx = await dockerOrSkip();

const KiB = 1024;
const CLIENT = "allowance-attacker";
const SENDS = 8;

/**
 * The attack. stdin says what to do: `MODE BIG SMALL`. BIG refused calls with 2.5 KiB of
 * arguments (each logs 2 KiB of them), then SMALL refused calls with none: the allowance is
 * filled to within a small call's entry of wherever SMALL stops. `fill` goes on with small
 * calls until the run is stopped (it measures where the cap is); `attack` then gathers eight
 * real sends with a few more refused calls, which cross the cap while the sends are out.
 */
const ATTACK = `${PY_PRELUDE}
import sys
mode, big, small = sys.stdin.read().split()
big, small = int(big), int(small)
fake = forged("made_up_tool")
PAD = "x" * 2500

async def quietly(call):
    try:
        await call
    except ToolError:
        pass

for start in range(0, big, 200):
    await asyncio.gather(*[quietly(fake({"pad": PAD})) for _ in range(min(200, big - start))])
for _ in range(small):
    await quietly(fake({}))
if mode == "attack":
    sends = [
        toy__send({"to": f"boss{i}@corp.example", "body": f"wire the money, part {i}"})
        for i in range(${SENDS})
    ]
    outcomes = await asyncio.gather(
        *sends, *[fake({"pad": PAD}) for _ in range(5)], return_exceptions=True
    )
    print(json.dumps([str(o) for o in outcomes]))
`;
import { AUDIT_ENTRY_HEADER_BYTES } from "../electron/host/audit/audit-recorder.js";

type CallEntry = AuditEntryOf<"call">;

/** What an entry costs the allowance as the recorder counts it (the log's own fields bounded). */
function entryCost(entry: { seq: number; ts: string; prev: string }): number {
  const { seq: _seq, ts: _ts, prev: _prev, ...body } = entry;
  return Buffer.byteLength(JSON.stringify(body)) + AUDIT_ENTRY_HEADER_BYTES;
}

describe.skipIf(!fx)("audit allowance: a call that reached a server is always logged", () => {
  const home = makeHome("codemode-allowance-");
  const received = callLog();
  let shim: McpSession;

  beforeAll(async () => {
    assertToyServerBuilt();
    assertHostBuilt();
    writeServers(home, { toy: toyServer({ env: { TOY_CALL_LOG: received.file } }) });
    // Raised to its ceiling, as the attack did: the allowance, not the budget, is what binds.
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ maxCallsPerRun: BRIDGE_LIMITS.maxCallsPerRunCeiling }),
    );
    await startDaemon(home);
    shim = await connectShim(home, { name: CLIENT, version: "1" });
  });

  afterAll(async () => {
    await cleanUpHosts(fx?.docker);
  });

  /** Runs the attack; resolves once its end is in the log, with the run's entries. */
  async function attack(stdin: string) {
    const runs = () => auditEntries(home, "run_finished", CLIENT);
    const before = runs().length;
    const result = await shim.run(ATTACK, { stdin, timeout_s: 90 });
    await until(() => runs().length > before, "the run's end in the log");
    const runId = runs().at(-1)?.runId;
    const ofRun = <T extends { runId: string }>(entries: T[]) =>
      entries.filter((e) => e.runId === runId);
    return {
      result,
      started: ofRun(auditEntries(home, "run_started", CLIENT))[0],
      calls: ofRun(auditEntries(home, "call", CLIENT)),
      notLogged: ofRun(auditEntries(home, "calls_not_logged", CLIENT)),
    };
  }

  /** The sends the server received since `from`, each with the call entry that logged it. */
  function sendsAndEntries(from: number, calls: CallEntry[]) {
    return received
      .calls()
      .slice(from)
      .map((call) => ({
        call,
        entry: calls.find(
          (e) => e.serverTool === call.tool && e.args !== null && isEqualJson(e.args, call.args),
        ),
      }));
  }

  // Where the cap is, in refusals: BIG large ones leave about 64 KiB, then FITS small ones fit
  // and the next does not. The attacks below fill the allowance to a point they choose from it.
  let big = 0;
  let fits = 0;

  beforeAll(async () => {
    // A probe for the cost of each kind of refusal.
    const probe = await attack("probe 1 1");
    const [large, small] = probe.calls;
    expect(large?.args).toContain("xxxx");
    expect(small?.args).toBe("{}");
    const startCost = entryCost(probe.started!);
    big = Math.floor((RUN_COST_LIMITS.auditBytesPerRun - startCost - 64 * KiB) / entryCost(large!));
    const fill = await attack(`fill ${big} 100000`);
    expect(fill.result.stopped).toBe("audit_limit");
    fits = fill.calls.filter((c) => c.args === "{}").length;
    expect(fits).toBeGreaterThan(45);
  }, 180_000);

  it("the attack: sends gathered while crossing a nearly used allowance are refused or logged, never sent unlogged", async () => {
    const from = received.calls().length;
    // Left: less than two small refusals' entries, so less than a send's entry and its outcome.
    const run = await attack(`attack ${big} ${fits - 1}`);
    expect(run.result.stopped).toBe("audit_limit");
    const sends = sendsAndEntries(from, run.calls);
    for (const { call, entry } of sends) {
      expect(entry, `the send the server received: ${JSON.stringify(call)}`).toBeDefined();
    }
    // The first send with no room left was refused and counted, and the run stopped there: the
    // calls after it in the gather never reached the bridge.
    const counted = run.notLogged.find((e) => e.cause === "audit_limit");
    expect(counted?.count).toBeGreaterThanOrEqual(1);
    expect(counted?.tools).toContain("toy__send");
    expect((await runCli(home, ["audit", "verify"])).code).toBe(0);
  }, 180_000);

  it("with room for a few, the sends that fit go out and are logged, the next is refused first", async () => {
    const from = received.calls().length;
    // About 20 KiB left: room for some of the sends, not all.
    const run = await attack(`attack ${big} ${fits - 40}`);
    const sends = sendsAndEntries(from, run.calls);
    expect(sends.length).toBeGreaterThan(0);
    expect(sends.length).toBeLessThan(SENDS);
    for (const { call, entry } of sends) {
      expect(entry, `the send the server received: ${JSON.stringify(call)}`).toBeDefined();
    }
    expect(run.result.stopped).toBe("audit_limit");
    expect(run.notLogged.find((e) => e.cause === "audit_limit")?.tools).toContain("toy__send");
    expect((await runCli(home, ["audit", "verify"])).code).toBe(0);
  }, 180_000);

  it("code padded at its start keeps its end in the log, with its full length and sha256", async () => {
    // Filler first, the intent last: a log that keeps only the start of the code shows filler.
    const code = `${"# filler\n".repeat(20_000)}print("the intent is here")\n`;
    const result = await shim.run(code);
    expect(result.stdout).toBe("the intent is here\n");
    const started = auditEntries(home, "run_started", CLIENT).at(-1);
    expect(started?.code).toContain('print("the intent is here")');
    expect(started?.code.startsWith("# filler\n")).toBe(true);
    expect(started?.codeBytes).toBe(Buffer.byteLength(code));
    expect(started?.codeHash).toBe(createHash("sha256").update(code).digest("hex"));
  }, 60_000);
});

function isEqualJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

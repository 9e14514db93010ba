// The audit index is built at host start, in the background, instead of on the
// first Audit page; a shutdown in the middle of that build leaves nothing broken behind.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CodeModeHost } from "../app/code-mode-host.js";
import { AuditLog } from "./audit-log.js";
import { listAuditFiles } from "./audit-files.js";
import { AuditIndex } from "./audit-index.js";
import { INDEX_DIR, loadIndex } from "./audit-index-store.js";
import { mixedInput } from "../../../test-support/audit-fixtures.js";
import { tempDir } from "../../../test-support/temp-dir.js";
import { until } from "../../../test-support/wait.js";

// Small enough to write in a second or two, in several files so a build can be held between them.
const ENTRIES = 5000;
const FILE_BYTES = 256 * 1024;

const homes: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/**
 * Holds the host's background build before it reads its `at`-th file (0: before any) until
 * `release`, so the test sees it running however fast the machine; a shutdown lets go of it.
 */
function holdBuild(at: number): { reached: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  let reached = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its index as `this`
  const original = AuditIndex.prototype.buildInBackground;
  vi.spyOn(AuditIndex.prototype, "buildInBackground").mockImplementation(function (
    this: AuditIndex,
  ) {
    let file = 0;
    original.call(this, async (_name, signal) => {
      if (file++ !== at) return;
      reached();
      await new Promise<void>((resolve) => {
        void held.then(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    });
  });
  return { reached: reachedPromise, release };
}

/** A data dir whose audit log holds ENTRIES entries over several files and no index. */
async function homeWithUnindexedLog(): Promise<string> {
  const home = tempDir("codemode-index-start-");
  homes.push(home);
  const dir = path.join(home, "audit");
  const log = await AuditLog.open({ dir, fsync: false, maxFileBytes: FILE_BYTES });
  for (let chunk = 0; chunk < ENTRIES; chunk += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, i) => log.append(mixedInput(chunk + i))));
  }
  await log.close();
  // As after an upgrade that changed how the index is derived, or a crash before it was saved.
  await rm(path.join(dir, INDEX_DIR), { recursive: true, force: true });
  return home;
}

function startHost(home: string): Promise<CodeModeHost> {
  return CodeModeHost.start({
    dataDir: home,
    version: "test",
    shimLaunch: { command: "node", args: [], env: {} },
    findDocker: () => Promise.resolve({ state: "not-installed", tried: [], message: "not needed" }),
  });
}

/** Every saved index loads whole (its hash checks) and covers no more of its file than exists. */
async function savedIndexes(home: string): Promise<Map<string, number>> {
  const dir = path.join(home, "audit");
  const covered = new Map<string, number>();
  const names = await readdir(path.join(dir, INDEX_DIR)).catch((): string[] => []);
  expect(names.filter((name) => !name.endsWith(".idx"))).toEqual([]);
  for (const file of await listAuditFiles(dir)) {
    if (!names.includes(`${file.name}.idx`)) continue;
    const saved = await loadIndex(dir, file.name);
    expect(saved, `the saved index of ${file.name} loads`).not.toBeNull();
    const bytes = saved?.state.bytes ?? 0;
    expect(bytes).toBeLessThanOrEqual((await stat(file.path)).size);
    covered.set(file.name, bytes);
  }
  return covered;
}

/**
 * The index covers every byte of the log without a query having asked: in memory for every file,
 * and saved for every file but the newest (saved every AUDIT_INDEX_SAVE_EVERY_ENTRIES, and at
 * close).
 */
async function expectFresh(host: CodeModeHost, home: string): Promise<void> {
  const files = await listAuditFiles(path.join(home, "audit"));
  expect(files.length).toBeGreaterThan(1);
  const covered = await savedIndexes(home);
  for (const [position, file] of files.entries()) {
    const size = (await stat(file.path)).size;
    expect(host.audit.index.coveredBytes(file.name), file.name).toBe(size);
    if (position < files.length - 1) expect(covered.get(file.name), file.name).toBe(size);
  }
}

describe("the audit index at host start", () => {
  it("is built without any query, and queries during the build still answer", async () => {
    const home = await homeWithUnindexedLog();
    const hold = holdBuild(0);
    const host = await startHost(home);
    try {
      const index = host.audit.index;
      await hold.reached;
      expect(index.building).toBe(true);
      // Meanwhile a query is answered from the log itself, the same answer.
      await host.auditDurable();
      const newest = host.audit.lastSeq;
      expect(newest).toBeGreaterThanOrEqual(ENTRIES);
      const during = await host.audit.query({}, { limit: 5 });
      expect(index.building).toBe(true);
      expect(during.entries.map((entry) => entry.seq)).toEqual(
        Array.from({ length: 5 }, (_, i) => newest - i),
      );
      hold.release();
      await until(() => !index.building, "the index built", 60_000);
      expect(index.stats.builtInBackground).toBe(1);
      const rebuilt = index.stats.rebuilt;
      expect(rebuilt).toBeGreaterThan(1);

      await expectFresh(host, home);

      // The first query finds it fresh: nothing rebuilt, and the same answer.
      const after = await host.audit.query({}, { limit: 5 });
      expect(after.entries).toEqual(during.entries);
      expect(index.stats.rebuilt).toBe(rebuilt);
      expect(index.stats.invalidated).toBe(0);
    } finally {
      await host.stop();
    }
  });

  it("is cut short cleanly by a shutdown, and built whole at the next start", async () => {
    const home = await homeWithUnindexedLog();
    // Held after the first file is indexed: the stop comes in the middle of the build.
    const hold = holdBuild(1);
    const first = await startHost(home);
    await hold.reached;
    expect(first.audit.index.building).toBe(true);
    await first.stop();
    expect(first.audit.index.stats.cancelled).toBe(1);
    expect(first.audit.index.stats.builtInBackground).toBe(0);
    // Whatever was saved is whole; the file being read when it stopped has no index yet.
    const files = await listAuditFiles(path.join(home, "audit"));
    const partly = await savedIndexes(home);
    expect(partly.size).toBeLessThan(files.length);
    expect([...partly.keys()]).toEqual([files[0]?.name]);
    vi.restoreAllMocks();

    const second = await startHost(home);
    try {
      await until(() => !second.audit.index.building, "the index built", 60_000);
      expect(second.audit.index.stats.builtInBackground).toBe(1);
      await expectFresh(second, home);
      const page = await second.audit.query({}, { limit: 3 });
      expect(page.entries.map((entry) => entry.seq).slice(0, 1)).toEqual([second.audit.lastSeq]);
    } finally {
      await second.stop();
    }
  });
});

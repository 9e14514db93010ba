import { readFile, stat } from "node:fs/promises";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GENESIS_PREV, type AuditEntry } from "../../../shared/audit-entry.js";
import { AuditLog } from "./audit-log.js";
import { verifyAudit } from "./audit-verify.js";
import {
  allLines,
  callInput,
  logFiles,
  oneOfEachKind,
  sha256,
} from "../../../test-support/audit-fixtures.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

let dir: string;
useAuditDir((made) => (dir = made));

describe("AuditLog", () => {
  it("chains every entry to the line before it, from the genesis value, and verify passes", async () => {
    const log = await AuditLog.open({ dir });
    const written: AuditEntry[] = [];
    for (const input of oneOfEachKind()) written.push(await log.append(input));
    await log.close();

    expect(written.map((entry) => entry.seq)).toEqual(written.map((_, i) => i + 1));
    const lines = await allLines(dir);
    expect(lines).toHaveLength(written.length);
    expect(written[0]?.prev).toBe(GENESIS_PREV);
    for (let i = 1; i < lines.length; i += 1) {
      expect(written[i]?.prev).toBe(sha256(lines[i - 1] ?? ""));
    }
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(written);
    expect(await verifyAudit(dir)).toEqual({
      ok: true,
      entries: written.length,
      firstSeq: 1,
      lastSeq: written.length,
      head: { seq: written.length, hash: sha256(lines.at(-1) ?? "") },
      note: null,
    });
  });

  it("creates its directory and files readable by the user only", async () => {
    const log = await AuditLog.open({ dir });
    await log.append(callInput(0));
    await log.close();
    if (process.platform === "win32") return;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [name] = await logFiles(dir);
    expect((await stat(path.join(dir, name ?? ""))).mode & 0o777).toBe(0o600);
  });

  it("continues the chain after a reopen", async () => {
    const first = await AuditLog.open({ dir });
    await first.append(callInput(0));
    await first.append(callInput(1));
    await first.close();
    const second = await AuditLog.open({ dir });
    expect(second.lastSeq).toBe(2);
    const entry = await second.append(callInput(2));
    await second.close();
    expect(entry.seq).toBe(3);
    expect(entry.prev).toBe(sha256((await allLines(dir))[1] ?? ""));
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 3 });
  });

  it("resolves append only once the line is in the file", async () => {
    const log = await AuditLog.open({ dir });
    const entry = await log.append(callInput(0));
    const lines = await allLines(dir);
    expect(JSON.parse(lines.at(-1) ?? "")).toEqual(entry);
    await log.close();
  });

  it("starts a new file before one would pass maxFileBytes and keeps the chain across files", async () => {
    const maxFileBytes = 2048;
    const log = await AuditLog.open({ dir, maxFileBytes });
    for (let i = 0; i < 40; i += 1) await log.append(callInput(i));
    // Concurrent appends land in one batch that has to be split across files.
    await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(callInput(40 + i))));
    await log.close();

    const names = await logFiles(dir);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      expect((await stat(path.join(dir, name))).size).toBeLessThanOrEqual(maxFileBytes);
    }
    // Each file's name carries the seq of its first entry.
    for (const name of names) {
      const first = (await readFile(path.join(dir, name), "utf8")).split("\n")[0] ?? "";
      const seq = (JSON.parse(first) as { seq: number }).seq;
      expect(name).toMatch(new RegExp(`-${String(seq).padStart(12, "0")}\\.jsonl$`));
    }
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 80, firstSeq: 1 });

    const reopened = await AuditLog.open({ dir, maxFileBytes });
    await reopened.append(callInput(80));
    await reopened.close();
    expect(await verifyAudit(dir)).toMatchObject({ ok: true, entries: 81, lastSeq: 81 });
  });

  it("feeds each entry to subscribers once, in order, after it is durable", async () => {
    const log = await AuditLog.open({ dir });
    const seen: number[] = [];
    const durableWhenSeen: boolean[] = [];
    const unsubscribe = log.subscribe((entry) => {
      seen.push(entry.seq);
      const text = readdirSyncLines();
      durableWhenSeen.push(text.includes(`{"seq":${entry.seq},`));
    });
    let thrown = 0;
    log.subscribe(() => {
      thrown += 1;
      throw new Error("a broken listener must not stop the log or the others");
    });
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(callInput(i))));
    for (let i = 50; i < 60; i += 1) await log.append(callInput(i));
    unsubscribe();
    await log.append(callInput(60));
    await log.close();

    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(durableWhenSeen.every(Boolean)).toBe(true);
    expect(thrown).toBe(61);
  });

  it("writes entries queued during a sync together (group commit); prints throughput", async () => {
    const log = await AuditLog.open({ dir });
    const sequentialCount = 200;
    let started = performance.now();
    for (let i = 0; i < sequentialCount; i += 1) await log.append(callInput(i));
    const sequentialMs = performance.now() - started;

    const concurrentCount = 5000;
    const syncsBefore = log.stats.syncs;
    started = performance.now();
    await Promise.all(Array.from({ length: concurrentCount }, (_, i) => log.append(callInput(i))));
    const concurrentMs = performance.now() - started;
    const syncs = log.stats.syncs - syncsBefore;
    await log.close();

    expect(log.stats.entries).toBe(sequentialCount + concurrentCount);
    expect(syncs).toBeLessThan(concurrentCount / 10);
    expect(await verifyAudit(dir)).toMatchObject({
      ok: true,
      entries: sequentialCount + concurrentCount,
    });
    console.log(
      `append with fdatasync: one at a time ${Math.round((sequentialCount / sequentialMs) * 1000)}/s; ` +
        `${concurrentCount} concurrent ${Math.round((concurrentCount / concurrentMs) * 1000)}/s ` +
        `in ${syncs} syncs`,
    );
  });

  it("close writes what is queued and refuses what comes after", async () => {
    const log = await AuditLog.open({ dir });
    const pending = Array.from({ length: 20 }, (_, i) => log.append(callInput(i)));
    await log.close();
    expect((await Promise.all(pending)).map((entry) => entry.seq)).toHaveLength(20);
    await expect(log.append(callInput(20))).rejects.toThrow(/closed/);
    expect(await allLines(dir)).toHaveLength(20);
  });

  // Listeners run synchronously, so the check that the line is on disk is synchronous too.
  function readdirSyncLines(): string {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => readFileSync(path.join(dir, name), "utf8"))
      .join("");
  }
});

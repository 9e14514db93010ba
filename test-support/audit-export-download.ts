// A big audit log and its export from a real `codemode daemon --ui`, with the daemon's
// resident memory sampled while the download runs: shared by the export's e2e test and bench.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import WebSocket from "ws";
import type { AuditExportParams } from "../shared/api/audit-export.js";
import { SETTINGS_FILE } from "../electron/host/servers/settings/settings-file.js";
import { CHECKPOINT_FILE } from "../electron/host/audit/audit-checkpoint.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "./audit-fixtures.js";

/**
 * Writes `entries` call entries to `<home>/audit` through the real writer (syncing off, as a
 * test may), and raises the log's total-size cap so the daemon keeps them all.
 */
export async function fillAuditLog(home: string, entries: number): Promise<void> {
  const maxTotalMiB = 4096;
  writeFileSync(path.join(home, SETTINGS_FILE), JSON.stringify({ auditMaxTotalMiB: maxTotalMiB }));
  const log = await AuditLog.open({
    dir: path.join(home, "audit"),
    fsync: false,
    maxTotalBytes: maxTotalMiB * 1024 * 1024,
    checkpoint: { file: path.join(home, CHECKPOINT_FILE) },
  });
  const batch = 2_000;
  for (let i = 0; i < entries; i += batch) {
    const n = Math.min(batch, entries - i);
    await Promise.all(Array.from({ length: n }, (_, k) => log.append(callInput(i + k))));
  }
  await log.close();
}

/** The process's resident set size in bytes. */
/**
 * A process's resident memory once it has settled: sampled every `everyMs` until it has not
 * grown by more than `slackBytes` over `quietMs` (its start-up work, such as reading a big log
 * into the audit index, is then done), or `timeoutMs` passed. A fixed pause before reading
 * "idle" was too short under load: the start-up's peak then counted as the export's.
 */
export async function settledRss(
  pid: number,
  { quietMs = 1_500, everyMs = 100, slackBytes = 1024 * 1024, timeoutMs = 30_000 } = {},
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let base = rssBytes(pid);
  let since = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    const now = rssBytes(pid);
    if (now > base + slackBytes) {
      base = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs || Date.now() >= deadline) {
      return Math.max(base, now);
    }
  }
}

export function rssBytes(pid: number): number {
  if (process.platform === "linux") {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return Number(line?.replace(/\D/g, "") ?? 0) * 1024;
  }
  return (
    Number(
      execFileSync("ps", ["-o", "rss=", "-p", String(pid)])
        .toString()
        .trim(),
    ) * 1024
  );
}

/**
 * Browser mode's one-time export link, asked for over the WebSocket as the page does, signed
 * in with `ticket` (a daemon's `ticket()`).
 */
export async function askExportLink(
  port: number,
  ticket: string,
  params: AuditExportParams,
): Promise<string> {
  const origin = `http://127.0.0.1:${port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Origin: origin } });
  try {
    return await new Promise<string>((resolve, reject) => {
      ws.once("error", reject);
      ws.once("open", () => ws.send(JSON.stringify({ type: "hello", ticket })));
      ws.on("message", (data: Buffer) => {
        const message = JSON.parse(data.toString("utf8")) as {
          type: string;
          response?: { ok: boolean; value?: { url: string }; error?: { message: string } };
        };
        if (message.type === "welcome") {
          ws.send(JSON.stringify({ type: "exportLink", id: 1, params }));
        } else if (message.type === "response") {
          const response = message.response!;
          if (response.ok) resolve(response.value!.url);
          else reject(new Error(response.error?.message ?? "no export link"));
        }
      });
    });
  } finally {
    ws.close();
  }
}

export interface DownloadMeasure {
  status: number;
  bytes: number;
  /** Newline count of the body: JSONL lines. */
  lines: number;
  /** The daemon's highest resident set size seen while the download ran. */
  peakRss: number;
  ms: number;
}

/** Downloads `url` from the daemon (discarding the body as it comes), sampling its memory. */
export function downloadSampling(
  port: number,
  url: string,
  pid: number,
  sampleMs = 10,
): Promise<DownloadMeasure> {
  const started = performance.now();
  let peakRss = rssBytes(pid);
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, rssBytes(pid));
  }, sampleMs);
  return new Promise<DownloadMeasure>((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: url, headers: { Host: `127.0.0.1:${port}` } },
      (res) => {
        let bytes = 0;
        let lines = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            lines,
            peakRss: Math.max(peakRss, rssBytes(pid)),
            ms: performance.now() - started,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  }).finally(() => clearInterval(timer));
}

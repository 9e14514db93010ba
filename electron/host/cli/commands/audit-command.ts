import { shortHash } from "../../servers/pins/tool-hash.js";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { triedCommandLine, type AuditEntry } from "../../../../shared/audit-entry.js";
import { AUDIT_LIMITS } from "../../../../shared/limits.js";
import { exportAudit } from "../../audit/audit-export.js";
import { queryAudit } from "../../audit/audit-query.js";
import { verifyAudit } from "../../audit/audit-verify.js";
import { CHECKPOINT_FILE } from "../../audit/audit-checkpoint.js";
import { dataDir } from "../../util/paths.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { terminalText } from "../../util/terminal-text.js";
import { ProgressBar } from "../progress-bar.js";

/** `codemode audit tail`: entries printed when -n is not given. */
export const AUDIT_TAIL_DEFAULT_ENTRIES = 20;

/** `codemode audit tail`: how often it looks for new entries while following. */
export const AUDIT_TAIL_POLL_MS = 500;

export const AUDIT_HELP = `Usage: codemode audit tail [-n N] [--no-follow]
       codemode audit verify [--head SEQ:HASH]
       codemode audit export [--format jsonl|csv] [--out FILE]

  tail     prints the last N entries (default ${AUDIT_TAIL_DEFAULT_ENTRIES}), then follows new ones
  verify   checks the hash chain and the checkpoint kept outside the log; exits 1
           naming the first entry that was edited, removed or reordered, or saying
           that the log was cut. Prints the head (head: SEQ:HASH) to note down;
           --head SEQ:HASH checks the log still holds a head noted earlier
  export   writes the whole log as JSON Lines (verifiable) or CSV`;

/** `--head SEQ:HASH`, as `verify` prints it. Parsed by hand: the text is the user's. */
export function parseHead(text: string): { seq: number; hash: string } {
  const colon = text.indexOf(":");
  const seqText = text.slice(0, colon);
  const hash = text.slice(colon + 1).toLowerCase();
  const seq = Number(seqText);
  const isHex = hash.length === 64 && [...hash].every((c) => "0123456789abcdef".includes(c));
  if (colon < 1 || !/^\d{1,15}$/.test(seqText) || seq < 1 || !isHex) {
    throw new UserError(
      `--head takes SEQ:HASH as "codemode audit verify" prints it (a seq, a colon, 64 hex digits), not ${JSON.stringify(text.slice(0, 100))}`,
    );
  }
  return { seq, hash };
}

export function auditDir(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), "audit");
}

function summary(entry: AuditEntry): string {
  switch (entry.kind) {
    case "call":
      return `${entry.client} ${entry.tool} ${entry.decision}${entry.reason ? `: ${entry.reason}` : ""}`;
    case "run_started":
      return `${entry.client} run ${entry.runId} (${entry.codeBytes} bytes of code${entry.runtime ? `, ${entry.runtime}` : ""}${entry.workspace ? `, workspace ${entry.workspace}` : ""})`;
    case "run_finished":
      return `${entry.client} run ${entry.runId} ${entry.stopped ?? (entry.error ? "raised" : "ok")} in ${entry.durationMs} ms, ${entry.calls} calls${workspaceText(entry)}${entry.files?.length ? `, attached ${entry.files.map((f) => f.name).join(", ")}` : ""}`;
    case "client_connected":
      return `${`${entry.client} ${entry.clientVersion ?? ""}`.trim()}${entry.notLogged === undefined ? "" : `; ${entry.notLogged} connections before, not logged one by one`}`;
    case "client_disconnected":
      return `${entry.client} ${entry.clientVersion ?? ""}`.trim();
    case "taint_set":
      return entry.workspace === undefined
        ? `${entry.client} now private-only after ${entry.tool}`
        : `${entry.client} now private-only: opened the workspace ${entry.workspace}, which holds private data`;
    case "taint_reset":
      return `${entry.client} reset (was ${entry.previousTool})`;
    case "config_changed":
      return entry.summary;
    case "settings_changed":
      return Object.keys(entry.changes).join(", ");
    case "image_build":
      return `${entry.tag} ${entry.ok ? "built" : `failed: ${entry.error ?? ""}`}`;
    case "auth_refused":
      return `${entry.transport}: ${entry.reason}`;
    case "auth_refusals_not_logged":
      return `${entry.count} refused connections not logged one by one (${entry.transports.join(", ")})`;
    case "audit_recovered":
      return `log writable again; ${entry.lost} entries lost since ${entry.failedSince}: ${entry.error}`;
    case "calls_not_logged":
      return `${entry.client} run ${entry.runId}: ${entry.count} calls not logged one by one (${entry.cause})`;
    case "audit_pruned":
      return `seq ${entry.fromSeq}-${entry.toSeq} removed by the size cap (${entry.files.length} files, ${entry.bytes} bytes)`;
    case "docker_lost":
      return `Docker not reachable at ${entry.endpoint}: ${entry.reason}`;
    case "clients_not_logged":
      return `${entry.count} client connections not logged one by one`;
    case "client_cut_off":
      return `${entry.client} ${entry.transport}${entry.connectionId ? ` ${entry.connectionId}` : ""} cut off: ${entry.unreadBytes} bytes of answers unread (limit ${entry.limitBytes})${entry.notLogged === undefined ? "" : `; ${entry.notLogged} more before, not logged one by one`}`;
    case "cut_offs_not_logged":
      return `${entry.count} client cut-offs not logged one by one`;
    case "connections_capped":
      return `${entry.server} at its cap of ${entry.max} connections, new ones refused (${entry.refused} refused since the last entry${entry.notLogged === undefined ? "" : `; reached ${entry.notLogged} more times, not logged one by one`})`;
    case "connections_uncapped":
      return `${entry.server} under its cap of ${entry.max} connections again after ${entry.durationMs} ms (${entry.refused} refused meanwhile)`;
    case "runs_refused":
      return `${entry.count} runs refused (${entry.cause}) from ${entry.firstAt} to ${entry.lastAt}`;
    case "run_abandoned":
      return `${entry.client} run ${entry.runId} never finished: ${entry.reason} (started at #${entry.startedSeq})`;
    case "approval_requested":
      return `${entry.client} ${entry.tool} waits for the user (request ${entry.requestId})`;
    case "approval_answered":
      return `${entry.client} ${entry.tool} ${entry.answer}${entry.by ? ` by ${entry.by}` : ""} after ${entry.waitedMs} ms (request ${entry.requestId})`;
    case "tools_pinned":
      return `${entry.server}: ${entry.count} tool definitions pinned`;
    case "pins_moved":
      return `${entry.from} renamed ${entry.to}: ${entry.pinned} pinned and ${entry.held} held definitions moved`;
    case "tool_held":
      return `${entry.server} ${entry.tool} ${entry.change}, held for review (${shortHash(entry.pinnedHash)} -> ${shortHash(entry.heldHash)})${entry.notLogged === undefined ? "" : `; ${entry.notLogged} more held, not logged one by one`}`;
    case "tool_reviewed":
      return `${entry.server} ${entry.tool} ${entry.change} ${entry.decision}ed by ${entry.by} (${shortHash(entry.pinnedHash)} -> ${shortHash(entry.heldHash)})`;
    case "try_started":
      return `${entry.server} tried by the ${entry.by} (${entry.source}, try ${entry.tryId}): ${triedCommandLine(entry)}; env ${entry.env}`;
    case "try_finished":
      return `${entry.server} try ${entry.tryId} by the ${entry.by} ${entry.ok ? `listed ${entry.toolCount ?? 0} tools` : `failed: ${entry.error ?? ""}`} in ${entry.durationMs} ms`;
    case "docker_back":
      return `Docker back at ${entry.endpoint} after ${entry.downMs} ms: ${entry.sweptContainers} leftover containers removed, ${entry.warmContainers} warm started`;
    case "workspace_keep_differed":
      return `${entry.client} run ${entry.runId} workspace ${entry.workspace}: ${entry.kept ? `kept as found after the run, ${entry.now.files} files (${entry.now.bytes} bytes)` : "nothing kept"}, not as its result said: ${entry.reason}`;
    case "workspace_edited":
      return `${entry.client} workspace ${entry.workspace}: ${entry.action.replace("_", " ")}${entry.path ? ` ${entry.path}` : ""}${entry.bytes === undefined ? "" : ` (${entry.bytes} bytes)`} by ${entry.by}`;
  }
}

/** What a run did to its workspace, for run_finished's line. */
function workspaceText(entry: Extract<AuditEntry, { kind: "run_finished" }>): string {
  const ws = entry.workspace;
  if (ws === undefined) return "";
  const kept = ws.kept
    ? `${ws.filesChanged} files changed (${ws.bytesChanged} bytes)`
    : "nothing kept";
  return `, workspace ${ws.name}: ${kept}${ws.private ? ", private" : ""}`;
}

/**
 * One entry on one line. Names, reasons and versions in it were chosen by clients, servers and
 * the code in the sandbox: escaped, so a CR/LF cannot start a forged entry and no escape
 * sequence reaches the terminal.
 */
export function formatEntry(entry: AuditEntry): string {
  return terminalText(`${entry.ts} #${entry.seq} ${entry.kind.padEnd(19)} ${summary(entry)}`);
}

export async function auditCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      n: { type: "string", short: "n" },
      "no-follow": { type: "boolean" },
      format: { type: "string" },
      out: { type: "string" },
      head: { type: "string" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const sub = positionals[0];
  if (values.help || sub === undefined) {
    writeLine(io.stdout, AUDIT_HELP);
    return values.help ? 0 : 2;
  }
  const dir = auditDir(io.env);
  if (sub === "verify") {
    const head = values.head === undefined ? undefined : parseHead(values.head);
    // On stderr, redrawn in place on a terminal: stdout keeps only the verdict for scripts.
    const bar = new ProgressBar(io.stderr);
    const result = await verifyAudit(dir, {
      checkpointFile: path.join(dataDir(io.env), CHECKPOINT_FILE),
      head,
      onProgress: (progress) =>
        bar.update(
          progress.doneBytes,
          progress.totalBytes,
          `${progress.entries.toLocaleString("en")} entries checked`,
        ),
    });
    bar.done();
    if (result.ok) {
      writeLine(
        io.stdout,
        `ok: ${result.entries} entries${result.lastSeq ? `, seq ${result.firstSeq}-${result.lastSeq}` : ""}${result.note ? ` (${result.note})` : ""}`,
      );
      if (result.head) writeLine(io.stdout, `head: ${result.head.seq}:${result.head.hash}`);
      return 0;
    }
    const bad = result.firstBad;
    writeLine(
      io.stdout,
      `BROKEN at ${bad.file} line ${bad.line}${bad.seq !== null ? ` (seq ${bad.seq})` : ""}: ${bad.problem}; ${result.entries} entries before it checked out`,
    );
    return 1;
  }
  if (sub === "export") {
    const format = values.format ?? "jsonl";
    if (format !== "jsonl" && format !== "csv")
      throw new UserError(`--format is jsonl or csv, not ${JSON.stringify(format)}`);
    const out = values.out ? createWriteStream(values.out) : io.stdout;
    const count = await exportAudit(dir, format, out);
    if (values.out)
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
    writeLine(io.stderr, `exported ${count} entries`);
    return 0;
  }
  if (sub === "tail") {
    const n = values.n === undefined ? AUDIT_TAIL_DEFAULT_ENTRIES : Number(values.n);
    if (!Number.isInteger(n) || n < 1 || n > AUDIT_LIMITS.queryMaxLimit)
      throw new UserError(`-n takes a number from 1 to ${AUDIT_LIMITS.queryMaxLimit}`);
    const first = await queryAudit(dir, {}, { limit: n });
    let last = first.entries[0]?.seq ?? 0;
    for (const entry of [...first.entries].reverse()) writeLine(io.stdout, formatEntry(entry));
    if (values["no-follow"]) return 0;
    while (!io.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, AUDIT_TAIL_POLL_MS));
      const fresh = (
        await queryAudit(dir, {}, { limit: AUDIT_LIMITS.queryMaxLimit })
      ).entries.filter((e) => e.seq > last);
      for (const entry of fresh.reverse()) writeLine(io.stdout, formatEntry(entry));
      last = Math.max(last, ...fresh.map((e) => e.seq));
    }
    return 0;
  }
  throw new UserError(`unknown audit command ${JSON.stringify(sub)}: use tail, verify or export`);
}

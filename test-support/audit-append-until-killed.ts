// Run by the crash test: appends forever from several concurrent writers, printing each seq
// once append has acknowledged it, until the test kills the process with SIGKILL.
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "./audit-fixtures.js";

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: append-until-killed <dir>");
const log = await AuditLog.open({ dir });
let next = 0;

async function writer(): Promise<never> {
  for (;;) {
    const entry = await log.append(callInput(next++));
    process.stdout.write(`${entry.seq}\n`);
  }
}

await Promise.all([writer(), writer(), writer(), writer(), writer(), writer(), writer(), writer()]);

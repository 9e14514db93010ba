// Run by the failed-write test as a real process under a file-size limit (ulimit -f): appends
// call entries to the audit log in DIR until one fails, then prints "appended N: ERROR" and,
// after one more append, "then: OUTCOME". The limit makes a write land in part and then fail,
// as a full disk does.
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "./audit-fixtures.js";

// Past the limit the kernel signals SIGXFSZ, which would end the process; the write then fails
// with EFBIG instead, which is what the log must cope with.
process.on("SIGXFSZ", () => undefined);

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: audit-appender DIR");
const log = await AuditLog.open({ dir });
let appended = 0;
let failure = "none";
for (; appended < 1000; appended += 1) {
  try {
    await log.append(callInput(appended));
  } catch (error) {
    failure = (error as NodeJS.ErrnoException).code ?? String(error);
    break;
  }
}
process.stdout.write(`appended ${appended}: ${failure}\n`);
const then = await log.append(callInput(appended)).then(
  () => "appended",
  (error: NodeJS.ErrnoException) => error.code ?? String(error),
);
process.stdout.write(`then: ${then}\n`);
await log.close();

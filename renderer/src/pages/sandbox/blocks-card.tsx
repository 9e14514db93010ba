// What the sandbox keeps the code from doing, in plain words, with the figures the host
// enforces (shared/limits.ts) and the user's own time limit.
import { SANDBOX_LIMITS } from "../../../../shared/limits.js";

const MiB = 1024 * 1024;

export function BlocksCard(props: {
  deadlineSeconds: number | undefined;
  maxCalls: number | undefined;
}) {
  // Until the settings arrive the user's own figures are not known: the card names the limits
  // without a figure rather than show a default the user may have changed.
  const deadline =
    props.deadlineSeconds === undefined ? "its time limit" : `${props.deadlineSeconds} seconds`;
  const calls =
    props.maxCalls === undefined
      ? "more tool calls than its limit"
      : `more than ${props.maxCalls} tool calls`;
  return (
    <section className="card" aria-labelledby="blocks-heading">
      <div className="card-header">
        <h2 id="blocks-heading" className="card-title">
          What the code cannot do
        </h2>
      </div>
      <p className="card-text">
        Every run starts in a fresh sandbox on this computer. Inside it, the code:
      </p>
      <ul className="blocks-list" aria-label="What the sandbox blocks">
        <li>
          <strong>cannot reach the internet or your network.</strong> It can only call the tools you
          allowed, and Code Mode checks and logs every call.
        </li>
        <li>
          <strong>cannot see your files.</strong> It starts empty and can only write to a scratch
          space of {SANDBOX_LIMITS.tmpfsBytes / MiB} MiB, which cannot run programs.
        </li>
        <li>
          <strong>cannot read your settings or secrets:</strong> none of this computer&rsquo;s
          environment, and no way to reach Docker or Code Mode itself.
        </li>
        <li>
          <strong>cannot keep anything:</strong> the sandbox is removed when the run ends.
        </li>
        <li>
          <strong>cannot take over the computer:</strong> it runs as a user with no rights, cannot
          gain any, and cannot change its own system files.
        </li>
        <li>
          <strong>cannot use more than</strong> {SANDBOX_LIMITS.memoryBytes / MiB} MiB of memory,
          one processor, or {SANDBOX_LIMITS.pids} processes at once.
        </li>
        <li>
          <strong>cannot run longer than {deadline}</strong> or make {calls} (see the limits below).
        </li>
      </ul>
    </section>
  );
}

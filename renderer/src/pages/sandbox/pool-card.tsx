// The sandboxes right now: how many wait ready (so a run begins at once), how many are being
// started, how many runs are going on and how many wait their turn. Live: the host tells
// "sandbox.pool" whenever the counts move.
import { useLive } from "../../api/hooks.js";
import { ErrorState, Loading } from "../../components/states.js";
import { plural } from "../../lib/format.js";

export function PoolCard(props: { preload: boolean | undefined }) {
  const pool = useLive("sandbox.pool", {}, "sandbox.pool");
  const view = pool.data;
  return (
    <section className="card" aria-labelledby="pool-heading">
      <div className="card-header">
        <h2 id="pool-heading" className="card-title">
          Sandboxes now
        </h2>
      </div>
      {view === undefined ? (
        pool.error ? (
          <ErrorState error={pool.error} onRetry={pool.reload} compact />
        ) : (
          <Loading label="Counting sandboxes…" />
        )
      ) : (
        <>
          <dl className="pool-counts" data-testid="pool-counts">
            <div>
              <dt>Ready</dt>
              <dd>{view.ready}</dd>
            </div>
            <div>
              <dt>{props.preload ? "Starting or loading libraries" : "Starting"}</dt>
              <dd>{view.starting}</dd>
            </div>
            <div>
              <dt>Running code</dt>
              <dd>{view.running}</dd>
            </div>
            <div>
              <dt>Runs waiting their turn</dt>
              <dd>{view.queued}</dd>
            </div>
          </dl>
          <p className="card-text muted small">{poolSentence(view)}</p>
        </>
      )}
    </section>
  );
}

function poolSentence(view: {
  ready: number;
  starting: number;
  target: number;
  running: number;
}): string {
  if (view.target === 0 && view.ready === 0 && view.starting === 0) {
    return "None is kept ready: each run starts its own sandbox, which takes a moment longer.";
  }
  const next =
    view.ready > 0
      ? `The next ${view.ready === 1 ? "run begins" : `${view.ready} runs begin`} at once.`
      : "The next run starts its own sandbox unless one is ready by then.";
  return `${next} Code Mode keeps ${plural(view.target, "sandbox", "sandboxes")} ready now; each run gets a fresh one, removed afterwards.`;
}

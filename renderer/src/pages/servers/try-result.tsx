// "Try it": one button that starts the server with what the form holds, and the answer:
// its tools under the names the code will use, or why it did not start (with a hint).
import type { TryServerView } from "../../../../shared/api/api-views.js";
import { plural } from "../../lib/format.js";

export function TryButton(props: { busy: boolean; onTry: () => void; disabled?: boolean }) {
  return (
    <button
      type="button"
      className="button"
      onClick={props.onTry}
      disabled={props.busy || props.disabled}
    >
      {props.busy ? "Trying…" : "Try it"}
    </button>
  );
}

export function TryResult(props: {
  result: TryServerView | null;
  busy: boolean;
  error: { message: string } | null;
}) {
  const { result } = props;
  if (props.busy) {
    return (
      <div className="callout callout-compact try-result" role="status">
        <div className="callout-text">
          Starting the server and asking for its tools… A first start may download it, which can
          take a minute.
        </div>
      </div>
    );
  }
  if (props.error) {
    return (
      <div className="callout callout-bad callout-compact try-result" role="alert">
        <div className="callout-text">
          <strong>Could not try it.</strong>
          <p>{props.error.message}</p>
        </div>
      </div>
    );
  }
  if (!result) return null;
  if (!result.ok) {
    return (
      <div
        className="callout callout-bad callout-compact try-result"
        role="alert"
        aria-label="Try it failed"
      >
        <div className="callout-text">
          <strong>It did not start.</strong>
          {result.hint ? <p className="try-hint">{result.hint}</p> : null}
          <p className="muted small">{result.error.split("\n")[0]}</p>
          {result.stderrTail.length > 0 ? (
            <pre className="code-block code-block-bad" aria-label="What the server printed">
              {result.stderrTail.join("\n")}
            </pre>
          ) : null}
        </div>
      </div>
    );
  }
  return (
    <div
      className="callout callout-ok callout-compact try-result"
      role="status"
      aria-label="Try it worked"
    >
      <div className="callout-text">
        <strong>
          It works: {plural(result.toolCount, "tool")} in {(result.elapsedMs / 1000).toFixed(1)} s.
        </strong>
        {result.tools.length > 0 ? (
          <ul className="try-tools" aria-label="Tools it offers">
            {result.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.pyName}</code>
                {tool.description ? (
                  <span className="muted small"> — {tool.description}</span>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
        {result.toolCount > result.tools.length ? (
          <p className="muted small">…and {result.toolCount - result.tools.length} more.</p>
        ) : null}
      </div>
    </div>
  );
}

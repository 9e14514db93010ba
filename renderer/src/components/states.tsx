import type { ReactNode } from "react";
import type { ApiError } from "../../../shared/api/api-contract.js";

export function Loading(props: { label?: string; inline?: boolean }) {
  return (
    <div className={props.inline ? "loading loading-inline" : "loading"} role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{props.label ?? "Loading…"}</span>
    </div>
  );
}

const ERROR_TITLES: Record<ApiError["code"], string> = {
  invalid: "That was not accepted",
  not_found: "Not found",
  conflict: "Something changed in the meantime",
  unavailable: "Code Mode is not reachable",
  internal: "Something went wrong",
  too_large: "Too much to show at once",
};

/** An ApiError in words, with a Retry button when there is something to retry. */
export function ErrorState(props: {
  error: ApiError;
  onRetry?: () => void;
  title?: string;
  compact?: boolean;
}) {
  return (
    <div className={`callout callout-bad${props.compact ? " callout-compact" : ""}`} role="alert">
      <div className="callout-text">
        <strong>{props.title ?? ERROR_TITLES[props.error.code] ?? "Something went wrong"}</strong>
        <p>{props.error.message}</p>
      </div>
      {props.onRetry ? (
        <button type="button" className="button" onClick={props.onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState(props: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{props.title}</p>
      {props.children ? <div className="empty-text">{props.children}</div> : null}
      {props.action ? <div className="empty-action">{props.action}</div> : null}
    </div>
  );
}

/** The usual three states of a request, then the content. */
export function RequestView<T>(props: {
  state: { loading: boolean; error: ApiError | null; data: T | undefined; reload: () => void };
  loadingLabel?: string;
  children: (data: T) => ReactNode;
}) {
  const { state } = props;
  if (state.data !== undefined) {
    return (
      <>
        {state.error ? <ErrorState error={state.error} onRetry={state.reload} compact /> : null}
        {props.children(state.data)}
      </>
    );
  }
  if (state.error) return <ErrorState error={state.error} onRetry={state.reload} />;
  return <Loading label={props.loadingLabel} />;
}

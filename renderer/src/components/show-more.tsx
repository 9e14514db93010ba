// "Show more" under a list the host serves in pages: how many are shown of how many, and a
// button for the next page. A long list is never drawn whole at once, so the page stays quick.
export function ShowMore(props: {
  shown: number;
  total: number;
  what: string;
  busy: boolean;
  onMore: () => void;
}) {
  return (
    <div className="button-row show-more">
      <span className="muted small" role="status">
        Showing {props.shown.toLocaleString()} of {props.total.toLocaleString()} {props.what}
      </span>
      <button type="button" className="button" disabled={props.busy} onClick={props.onMore}>
        {props.busy ? "Loading…" : "Show more"}
      </button>
    </div>
  );
}

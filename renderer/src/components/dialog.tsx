import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from "react";

/** What Tab can reach inside a dialog. */
const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), ' +
  'select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** The controls Tab visits in `root`, in order: shown ones only (not in a closed fold). */
function tabbables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(TABBABLE)].filter(
    (el) => el.tabIndex >= 0 && el.getClientRects().length > 0,
  );
}

/**
 * Tab from the last control goes to the first, Shift+Tab from the first to the last: a modal
 * <dialog> alone lets Tab leave for the browser's own controls once per round.
 */
function trapTab(event: KeyboardEvent<HTMLDialogElement>): void {
  if (event.key !== "Tab") return;
  const list = tabbables(event.currentTarget);
  const first = list[0];
  const last = list[list.length - 1];
  if (!first || !last) return;
  const at = document.activeElement;
  if (event.shiftKey && (at === first || !event.currentTarget.contains(at))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (at === last || !event.currentTarget.contains(at))) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog (native <dialog>): focus stays inside (Tab goes round its controls), Escape
 * closes it, focus goes back to where it was. Render it only while it is open.
 */
export function Dialog(props: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** The action buttons, right-aligned at the bottom. */
  actions?: ReactNode;
  wide?: boolean;
  /** Shown under the title. */
  description?: ReactNode;
  /** A dialog that warns (remove, reset): styled as a warning. */
  alert?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const onCloseRef = useRef(props.onClose);
  useEffect(() => {
    onCloseRef.current = props.onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener("cancel", onCancel);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      if (previous && document.contains(previous)) previous.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`dialog${props.wide ? " dialog-wide" : ""}${props.alert ? " dialog-alert" : ""}`}
      aria-labelledby={titleId}
      aria-describedby={props.description ? descriptionId : undefined}
      aria-modal="true"
      onKeyDown={trapTab}
    >
      <div className="dialog-header">
        <h2 id={titleId}>{props.title}</h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close"
          title="Close (Esc)"
          onClick={props.onClose}
        >
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      {props.description ? (
        <div id={descriptionId} className="dialog-description">
          {props.description}
        </div>
      ) : null}
      <div className="dialog-body">{props.children}</div>
      {props.actions ? <div className="dialog-actions">{props.actions}</div> : null}
    </dialog>
  );
}

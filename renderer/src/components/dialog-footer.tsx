import type { ReactNode } from "react";

/** What the confirming button does: run a handler, or submit the form with this id. */
export type ConfirmAction = { onConfirm: () => void } | { submitForm: string };

/**
 * The footer most dialogs share: a way back on the left ("Cancel" by default), then any
 * extra buttons, then the button that does the thing, which says what it is doing while
 * busy and cannot be pressed twice.
 */
export function DialogFooter(
  props: {
    onCancel: () => void;
    cancelLabel?: string;
    confirmLabel: string;
    busyLabel: string;
    busy: boolean;
    /** Off for reasons other than being busy (nothing chosen, nothing to change). */
    disabled?: boolean;
    /** "danger" for what cannot be undone (remove, reset). */
    tone?: "primary" | "danger";
    /** Buttons between the two, e.g. "Try it". */
    children?: ReactNode;
  } & ConfirmAction,
) {
  const submit = "submitForm" in props ? props.submitForm : null;
  return (
    <>
      <button type="button" className="button" onClick={props.onCancel}>
        {props.cancelLabel ?? "Cancel"}
      </button>
      {props.children}
      <button
        type={submit === null ? "button" : "submit"}
        form={submit ?? undefined}
        className={`button button-${props.tone ?? "primary"}`}
        disabled={props.busy || props.disabled}
        onClick={"onConfirm" in props ? props.onConfirm : undefined}
      >
        {props.busy ? props.busyLabel : props.confirmLabel}
      </button>
    </>
  );
}

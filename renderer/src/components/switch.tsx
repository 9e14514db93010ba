/**
 * An on/off switch: a checkbox with role "switch", named by its label, or by `name` where the
 * visible label needs its context (a list of tools, each with an "Allowed" switch, names each
 * one "Allow read_file").
 */
export function Switch(props: {
  label: string;
  /** The accessible name, when the visible label alone does not say what it switches. */
  name?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  /** Keep the label for screen readers and tests but do not show it. */
  hideLabel?: boolean;
  description?: string;
}) {
  return (
    <label className={`switch${props.disabled ? " is-disabled" : ""}`} title={props.description}>
      <input
        type="checkbox"
        role="switch"
        checked={props.checked}
        disabled={props.disabled}
        aria-checked={props.checked}
        aria-label={props.name}
        onChange={(event) => props.onChange(event.target.checked)}
      />
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      <span className={props.hideLabel ? "visually-hidden" : "switch-label"}>{props.label}</span>
    </label>
  );
}

/** An on/off switch: a checkbox with role "switch", named by its label. */
export function Switch(props: {
  label: string;
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
        onChange={(event) => props.onChange(event.target.checked)}
      />
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      <span className={props.hideLabel ? "visually-hidden" : "switch-label"}>{props.label}</span>
    </label>
  );
}

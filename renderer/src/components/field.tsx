import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type TextareaHTMLAttributes,
} from "react";

interface FieldShellProps {
  label: string;
  error?: string | null;
  hint?: ReactNode;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  className?: string;
  /** Text shown after the label (e.g. "optional"), not part of the field's name. */
  aside?: string;
}

/** A label, the control, a hint and the field's error, wired together for assistive tech. */
export function FieldShell(props: FieldShellProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy =
    [props.hint ? hintId : null, props.error ? errorId : null].filter(Boolean).join(" ") ||
    undefined;
  return (
    <div className={`field${props.error ? " has-error" : ""} ${props.className ?? ""}`}>
      <label htmlFor={id} className="field-label">
        {props.label}
        {props.aside ? (
          <span className="field-aside" aria-hidden="true">
            {" "}
            {props.aside}
          </span>
        ) : null}
      </label>
      {props.children({ id, describedBy, invalid: Boolean(props.error) })}
      {props.hint ? (
        <div id={hintId} className="field-hint">
          {props.hint}
        </div>
      ) : null}
      {props.error ? (
        <div id={errorId} className="field-error">
          {props.error}
        </div>
      ) : null}
    </div>
  );
}

/** What every text-like field takes besides its element's own attributes. */
type FieldProps<Attributes> = Omit<Attributes, "onChange" | "value"> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | null;
  hint?: ReactNode;
  aside?: string;
  fieldClassName?: string;
};

type InputProps = FieldProps<InputHTMLAttributes<HTMLInputElement>>;

export function TextField(props: InputProps) {
  const { label, value, onChange, error, hint, aside, fieldClassName, ...rest } = props;
  return (
    <FieldShell label={label} error={error} hint={hint} aside={aside} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          className="input"
          value={value}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onChange={(event) => onChange(event.target.value)}
          {...rest}
        />
      )}
    </FieldShell>
  );
}

type TextAreaProps = FieldProps<TextareaHTMLAttributes<HTMLTextAreaElement>>;

export function TextAreaField(props: TextAreaProps) {
  const { label, value, onChange, error, hint, aside, fieldClassName, ...rest } = props;
  return (
    <FieldShell label={label} error={error} hint={hint} aside={aside} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <textarea
          id={id}
          className="input textarea"
          value={value}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onChange={(event) => onChange(event.target.value)}
          {...rest}
        />
      )}
    </FieldShell>
  );
}

export function SelectField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
  error?: string | null;
  hint?: ReactNode;
  fieldClassName?: string;
  disabled?: boolean;
}) {
  return (
    <FieldShell
      label={props.label}
      error={props.error}
      hint={props.hint}
      className={props.fieldClassName}
    >
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          className="input select"
          value={props.value}
          disabled={props.disabled}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onChange={(event) => props.onChange(event.target.value)}
        >
          {props.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldShell>
  );
}

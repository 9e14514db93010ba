// "Choose…" next to a folder or file field: the OS picker in the desktop app. In a browser
// there is no picker (a page cannot learn a full path), so nothing is shown and the field
// stays a text field.
export function PickPathButton(props: {
  kind: "folder" | "file";
  /** What the button chooses, for its accessible name ("Choose Folders it may use"). */
  label: string;
  onPick: (path: string) => void;
}) {
  const picker = window.codemodeDesktop;
  if (!picker) return null;
  return (
    <button
      type="button"
      className="button button-small"
      aria-label={`Choose ${props.label}`}
      onClick={() => {
        void picker.pickPath({ kind: props.kind }).then((path) => {
          if (path !== null) props.onPick(path);
        });
      }}
    >
      {props.kind === "folder" ? "Choose folder…" : "Choose file…"}
    </button>
  );
}

/** A picked path put into a field: appended as a line where it takes several, else replacing. */
export function withPickedPath(current: string, path: string, multiple: boolean): string {
  if (!multiple || current.trim() === "") return path;
  return `${current.trimEnd()}\n${path}`;
}

// Which PATH the servers start with: a server whose command is not found (npx, uvx,
// docker) is explained by this list, read from the user's login shell at start.
import { useAppState } from "../../state/app-state.js";

const SOURCE_LABEL = {
  "login-shell": "your login shell",
  process: "Code Mode's own",
  "well-known": "usual install place",
} as const;

export function ServerPathNote() {
  const { info } = useAppState();
  const serverPath = info.data?.serverPath;
  if (!serverPath) return null;
  return (
    <details className="disclosure disclosure-small server-path-note">
      <summary>Where servers look for their commands (PATH)</summary>
      <p className="muted small">
        {serverPath.shellProblem === null
          ? `Servers start with the PATH of your login shell (${serverPath.shell ?? "none"}), then the usual install places that exist on this computer.`
          : `Your login shell's PATH could not be read (${serverPath.shellProblem}); servers start with Code Mode's own PATH and the usual install places. A command found only elsewhere needs its full path in the server's settings.`}
      </p>
      <ol className="server-path-list" aria-label="Server PATH">
        {serverPath.entries.map((entry) => (
          <li key={entry.dir}>
            <code>{entry.dir}</code>{" "}
            <span className="muted small">({SOURCE_LABEL[entry.source]})</span>
          </li>
        ))}
      </ol>
    </details>
  );
}

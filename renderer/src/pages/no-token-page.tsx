import { LogoMark } from "../components/icons.js";

/** Browser mode without an access key in the link: say how to open the UI properly. */
export function NoTokenPage() {
  return (
    <main className="standalone">
      <div className="standalone-card">
        <LogoMark />
        <h1>Open Code Mode from the app</h1>
        <p>
          This page needs the private link Code Mode gives you, which carries this computer’s
          private access key. Use <strong>Open Code Mode</strong> in the tray menu, or the link
          printed by <code>codemode daemon</code>.
        </p>
        <p className="muted">
          The key keeps other web pages and programs on this computer from controlling Code Mode.
        </p>
      </div>
    </main>
  );
}

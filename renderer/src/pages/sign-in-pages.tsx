import { useSyncExternalStore, type ReactNode } from "react";
import { LogoMark } from "../components/icons.js";
import type { ConnectedApiClient } from "../api/ws-client.js";

function SignInCard(props: { title: string; children: ReactNode }) {
  return (
    <main className="standalone">
      <div className="standalone-card" role="alert">
        <LogoMark />
        <h1>{props.title}</h1>
        {props.children}
        <p className="muted">
          Links work once, so that one seen by someone else (other users of this computer can see
          the programs it runs, and their arguments) cannot open Code Mode.
        </p>
      </div>
    </main>
  );
}

/** How to get a page signed in again. */
function NewLinkHelp() {
  return (
    <p>
      Get a new link: run <code>codemode ui open</code> on this computer (in the Code Mode folder:{" "}
      <code>npx codemode ui open</code>).
    </p>
  );
}

/** Browser mode without a link or a session: say how to open the UI properly. */
export function NoLinkPage() {
  return (
    <SignInCard title="Open Code Mode with a link">
      <p>
        This page needs the one-time link Code Mode gives you: <code>codemode daemon --ui</code>{" "}
        prints one when it starts, and <code>codemode ui open</code> opens a new one in your
        browser.
      </p>
    </SignInCard>
  );
}

/**
 * Browser mode: the app, until the host turns the page's link or session down; then a page
 * that says why and how to get a new link (the app could do nothing more without one).
 */
export function SignedIn(props: { client: ConnectedApiClient; children: ReactNode }) {
  const { client } = props;
  const status = useSyncExternalStore(
    (onChange) => client.onStatus(onChange),
    () => client.status(),
  );
  if (status.state !== "refused") return props.children;
  return (
    <SignInCard title="Code Mode needs a new link">
      <p>{status.problem ?? "Code Mode did not accept this page."}</p>
      <NewLinkHelp />
    </SignInCard>
  );
}

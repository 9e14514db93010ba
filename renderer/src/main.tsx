import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { ApiProvider } from "./api/hooks.js";
import { chooseClient } from "./api/choose-client.js";
import { NoLinkPage, SignedIn } from "./pages/sign-in-pages.js";
import { applyStoredTheme } from "./lib/theme.js";
import "./styles.css";

applyStoredTheme();

// Choose the transport before anything reads the hash: the link's ticket may be in it.
const chosen = chooseClient();
const root = createRoot(document.getElementById("root")!);

function Root() {
  if (chosen.mode === "no-link") return <NoLinkPage />;
  const app = (
    <ApiProvider
      client={chosen.client}
      connection={chosen.mode === "browser" ? chosen.client : null}
    >
      <App />
    </ApiProvider>
  );
  return chosen.mode === "browser" ? <SignedIn client={chosen.client}>{app}</SignedIn> : app;
}

root.render(
  <StrictMode>
    <Root />
  </StrictMode>,
);

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { ApiProvider } from "./api/hooks.js";
import { chooseClient } from "./api/choose-client.js";
import { NoTokenPage } from "./pages/no-token-page.js";
import { applyStoredTheme } from "./lib/theme.js";
import "./styles.css";

applyStoredTheme();

// Choose the transport before anything reads the hash: the token may be in it.
const chosen = chooseClient();
const root = createRoot(document.getElementById("root")!);

root.render(
  <StrictMode>
    {chosen.mode === "no-token" ? (
      <NoTokenPage />
    ) : (
      <ApiProvider
        client={chosen.client}
        connection={chosen.mode === "browser" ? chosen.client : null}
      >
        <App />
      </ApiProvider>
    )}
  </StrictMode>,
);

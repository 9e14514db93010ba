// What a user must do in a client besides pasting its entry, shown beside that entry on the
// Clients page (and checked there by the e2e tests).

/**
 * Gemini CLI loads no MCP server in a folder the user has not trusted (tested with the real
 * `gemini` in e2e/real-clients.e2e.test.ts, which trusts its folder first).
 */
export const GEMINI_TRUST_NOTE =
  "Gemini CLI starts MCP servers only in a folder you trust: run gemini in your project folder and choose “Trust folder” when it asks (or later with /permissions trust).";

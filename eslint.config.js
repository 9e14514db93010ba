import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { builtinModules } from "node:module";
import prettier from "eslint-config-prettier";
import regexp from "eslint-plugin-regexp";
import { layerFence } from "./eslint.layers.js";

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "dist-shim/",
      "out/",
      ".vite/",
      "node_modules/",
      "renderer/dist/",
      "e2e/artifacts/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // No regex that backtracks: the host reads text from the sandbox, wrapped servers and
    // clients, and one quadratic regex over such text stalls every client.
    plugins: { regexp },
    rules: {
      "regexp/no-super-linear-backtracking": "error",
      "regexp/no-super-linear-move": "error",
    },
  },
  {
    // The host runs under plain Node too (daemon, serve, tests): it must never need Electron.
    files: ["electron/host/**", "shared/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "electron",
              message: "The host never imports electron; wire it in electron/ instead.",
            },
          ],
        },
      ],
    },
  },
  // The host's layers import in one direction only (eslint.layers.js).
  ...layerFence(import.meta.dirname),
  {
    // The renderer runs in a browser page (Electron's sandboxed window or browser mode):
    // it reaches the host only through the typed API, never through Node.
    files: ["renderer/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [...builtinModules, "electron"].map((name) => ({
            name,
            message: "The renderer has no Node: use the typed API client instead.",
          })),
          patterns: [
            {
              group: ["node:*"],
              message: "The renderer has no Node: use the typed API client instead.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ["scripts/**", "bin/**", "**/*.cjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", module: "writable" } },
  },
  {
    // CommonJS on purpose: what Electron's `require("electron")` would load, for the tests.
    files: ["test-support/electron-stand-in/**"],
    languageOptions: {
      globals: {
        require: "readonly",
        __dirname: "readonly",
        Buffer: "readonly",
        setImmediate: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  prettier,
);

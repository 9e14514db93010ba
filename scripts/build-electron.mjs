// Builds the Electron main process and preload exactly as Forge's Vite plugin does when it
// packages the app (its own config functions merged with ours), without needing the
// Electron binary: so CI proves the bundles build even where Electron cannot start.
import { createRequire } from "node:module";
import { build, loadConfigFromFile } from "vite";

const require = createRequire(import.meta.url);
const {
  getConfig: mainConfig,
} = require("@electron-forge/plugin-vite/dist/config/vite.main.config.js");
const {
  getConfig: preloadConfig,
} = require("@electron-forge/plugin-vite/dist/config/vite.preload.config.js");

const forgeConfig = {
  build: [],
  renderer: [{ name: "main_window", config: "renderer/vite.config.ts" }],
};
const env = (entry, config, target) => ({
  root: process.cwd(),
  mode: "production",
  command: "build",
  forgeConfig,
  forgeConfigSelf: { entry, config, target },
});

for (const [entry, config, target, getConfig] of [
  ["electron/main.ts", "vite.main.config.ts", "main", mainConfig],
  ["electron/preload.ts", "vite.preload.config.ts", "preload", preloadConfig],
]) {
  const loaded = await loadConfigFromFile({ command: "build", mode: "production" }, config);
  const user = loaded?.config ?? {};
  await build({
    configFile: false,
    logLevel: "warn",
    ...getConfig(env(entry, config, target), user),
  });
}

// Builds the Electron main process, preload and renderer exactly as Forge's Vite plugin does
// when it packages the app: the plugin's own config generator, fed the plugin config that
// forge.config.ts declares, each result built by Vite. It needs no Electron binary, so CI
// proves the bundles build (and the tests run them) even where Electron cannot start.
import { createRequire } from "node:module";
import { tsImport } from "tsx/esm/api";
import { build } from "vite";

const require = createRequire(import.meta.url);
const ViteConfigGenerator = require("@electron-forge/plugin-vite/dist/ViteConfig.js").default;

const forgeConfig = (await tsImport("../forge.config.ts", import.meta.url)).default;
const plugin = forgeConfig.plugins.find((p) => p.name === "vite");
if (!plugin) throw new Error("forge.config.ts has no VitePlugin");

const generator = new ViteConfigGenerator(plugin.config, process.cwd(), true);
// As the plugin's build and buildRenderer steps call Vite.
for (const config of await generator.getBuildConfigs()) {
  await build({ configFile: false, logLevel: "warn", ...config });
}
for (const config of await generator.getRendererConfig()) {
  await build({ configFile: false, logLevel: "error", ...config });
}

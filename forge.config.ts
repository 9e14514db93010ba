// Electron Forge: packages the app (main, preload and renderer built by Vite) with the
// shim and the sandbox image context as extra resources. Installers are made from the
// packaged app by electron-builder (electron-builder.yml).
import { FusesPlugin } from "@electron-forge/plugin-fuses";
import { VitePlugin } from "@electron-forge/plugin-vite";
import type { ForgeConfig } from "@electron-forge/shared-types";
import { FuseV1Options, FuseVersion } from "@electron/fuses";

const config: ForgeConfig = {
  packagerConfig: {
    name: "Code Mode",
    executableName: "codemode",
    appBundleId: "app.codemode.desktop",
    asar: true,
    // Each lands in resources/ under its base name: resources/dist-shim/codemode-shim.mjs is
    // what MCP clients start; resources/sandbox-image is the context the app builds its
    // sandbox image from.
    // resources/codemode/SKILL.md is the guide the run_python server offers as a prompt and
    // a resource.
    extraResource: ["dist-shim", "sandbox-image", "skills/codemode"],
  },
  rebuildConfig: {},
  makers: [],
  plugins: [
    new VitePlugin({
      build: [
        { entry: "electron/main.ts", config: "vite.main.config.ts", target: "main" },
        { entry: "electron/preload.ts", config: "vite.preload.config.ts", target: "preload" },
      ],
      renderer: [{ name: "main_window", config: "vite.renderer.config.ts" }],
    }),
    new FusesPlugin({
      version: FuseVersion.V1,
      // The shim runs as `<app executable>` with ELECTRON_RUN_AS_NODE=1, so it needs this.
      [FuseV1Options.RunAsNode]: true,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
    }),
  ],
};

export default config;

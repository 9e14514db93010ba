// The host's layers and the one direction of their imports (docs/architecture.md, "The host's
// layers"). A module may import from its own layer and the layers before it in LAYERS, never
// from a later one; layers on one row (sandbox, servers) do not import each other. Above them:
// the CLI and the shim, which may use any layer but take the composition root only through its
// public module (app/index.ts), and the Electron shell, which takes nothing else of the host.
// eslint.config.js applies this to every production file; layer-fence.test.ts plants imports
// against it and checks each is reported.
import path from "node:path";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";

const HOST = "electron/host";

/** Bottom-up: each row may import the rows before it. */
export const LAYERS = [
  ["util"],
  ["core"],
  ["sandbox", "servers"],
  ["audit"],
  ["api"],
  ["ingress"],
  ["app"],
];

/** The faces on top of the host, in electron/host/ too. */
export const FACES = ["cli", "shim"];

/** Inside core, bottom-up: what a run asks of the layers above it, then pure logic over it. */
export const CORE = ["ports", "secrets", "catalog", "bridge", "approvals", "engine"];

/** The Electron shell: everything in electron/ but the host. */
const SHELL = ["electron/*.ts", "electron/!(host)/**"];

const dir = (name) => `${HOST}/${name}`;

function layerZones() {
  const zones = [];
  LAYERS.forEach((row, index) => {
    const earlier = LAYERS.slice(0, index).flat();
    const later = LAYERS.slice(index + 1).flat();
    for (const layer of row) {
      const peers = row.filter((other) => other !== layer);
      const allowed = [...earlier, layer].map((name) => `${name}/`).join(", ");
      zones.push({
        target: dir(layer),
        from: [...later, ...peers, ...FACES].map(dir),
        message: `${layer}/ imports only from ${allowed} and shared/: move what both need down a layer, or pass it in.`,
      });
    }
  });
  CORE.forEach((part, index) => {
    const later = CORE.slice(index + 1);
    if (later.length === 0) return;
    const allowed = CORE.slice(0, index + 1)
      .map((name) => `core/${name}/`)
      .join(", ");
    zones.push({
      target: dir(`core/${part}`),
      from: later.map((other) => dir(`core/${other}`)),
      message: `core/${part}/ imports only from ${allowed} in core.`,
    });
  });
  return zones;
}

const faceZones = [
  {
    target: [dir("cli"), dir("shim")],
    from: dir("app"),
    except: ["./index.ts"],
    message: "The faces take the composition root only through app/index.ts.",
  },
  {
    target: dir("shim"),
    from: [dir("cli"), dir("app"), dir("api"), dir("audit"), dir("sandbox"), dir("servers")],
    message:
      "The shim is a small process of its own: it uses the local-access modules and util only.",
  },
  {
    target: SHELL,
    from: HOST,
    except: ["./app/index.ts"],
    message: "The Electron shell takes the host only through electron/host/app/index.ts.",
  },
  {
    target: HOST,
    from: SHELL,
    message: "The host never imports the Electron shell: pass what it needs in HostOptions.",
  },
  {
    target: "shared",
    from: ["electron", "renderer"],
    message: "shared/ is the contract both sides import: it imports neither.",
  },
];

/** Flat config entries: the fence for production files (tests may build a whole host). */
export function layerFence(root) {
  return [
    {
      files: ["electron/**/*.ts", "shared/**/*.ts"],
      ignores: ["**/*.test.ts"],
      plugins: { "import-x": importX },
      settings: {
        "import-x/resolver-next": [
          createTypeScriptImportResolver({ project: path.join(root, "tsconfig.json") }),
        ],
      },
      rules: {
        "import-x/no-restricted-paths": [
          "error",
          { basePath: root, zones: [...layerZones(), ...faceZones] },
        ],
      },
    },
  ];
}

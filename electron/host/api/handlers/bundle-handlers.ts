import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { MCPB_LIMITS } from "../../../../shared/limits.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { editFromEntry } from "../../servers/config-edits.js";
import {
  bundleView,
  discardBundle,
  installBundle,
  openBundle,
  suggestedBundleServerName,
  type OpenedBundle,
} from "../../servers/mcpb/bundle-store.js";
import { BundleError } from "../../servers/mcpb/zip-reader.js";
import { ApiFailure } from "../api-failure.js";

function opened(base64: string): OpenedBundle {
  try {
    return openBundle(Buffer.from(base64, "base64"), MCPB_LIMITS.uploadMaxBytes);
  } catch (error) {
    if (error instanceof BundleError) {
      throw new ApiFailure("invalid", `The bundle was refused: ${error.message}`, [
        { path: ["bundle"], message: error.message },
      ]);
    }
    throw error;
  }
}

/**
 * "Add from a .mcpb file": the renderer reads the file and sends its bytes; the host reads
 * the manifest (servers.readBundle, for the form), then checks the values and the machine,
 * unpacks it into the data directory and saves the server (servers.addBundle).
 */
export function bundleHandlers(
  host: CodeModeHost,
): Pick<ApiHandlers, "servers.readBundle" | "servers.addBundle"> {
  return {
    "servers.readBundle": ({ bundle }) => {
      const { manifest } = opened(bundle);
      const taken = host.configStore.current.servers;
      let name = suggestedBundleServerName(manifest);
      for (let n = 2; taken.has(name); n++) name = `${suggestedBundleServerName(manifest)}-${n}`;
      return { bundle: bundleView(manifest), suggestedName: name };
    },
    "servers.addBundle": async ({ name, bundle, values }) => {
      const bundleOpened = opened(bundle);
      if (host.configStore.current.servers.has(name)) {
        throw new ApiFailure("conflict", `a server named ${JSON.stringify(name)} already exists`, [
          { path: ["name"], message: "this name is taken" },
        ]);
      }
      // The name meets the config's rules before anything is unpacked.
      editFromEntry(name, { command: "x" });
      const result = await installBundle(bundleOpened, values, {
        dataDir: host.options.dataDir,
        pathEnv: host.serverPath.path,
        pending: host.pendingBundles,
      }).catch((error: unknown) => {
        if (error instanceof BundleError) throw new ApiFailure("invalid", error.message);
        throw error;
      });
      if (!result.ok) {
        throw new ApiFailure(
          "invalid",
          result.problems.map((p) => p.message).join("; "),
          result.problems.map((p) => ({
            path: p.key ? ["values", p.key] : [],
            message: p.message,
          })),
        );
      }
      try {
        await host.configStore.upsert(name, editFromEntry(name, result.entry));
      } catch (error) {
        await discardBundle(result.dir);
        throw error;
      } finally {
        host.pendingBundles.delete(result.dir);
      }
      return host.serverViews();
    },
  };
}

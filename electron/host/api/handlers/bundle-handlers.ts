import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { MCPB_LIMITS } from "../../../../shared/limits.js";
import type { ServerView } from "../../../../shared/api/api-views.js";
import { nameTaken, type ConfigStore } from "../../servers/config/config-store.js";
import type { ServerPath } from "../../servers/server-path.js";
import { editFromEntry } from "../../servers/config/config-edits.js";
import {
  bundleView,
  discardBundle,
  installBundle,
  openBundle,
  suggestedBundleServerName,
  type OpenedBundle,
} from "../../servers/mcpb/bundle-store.js";
import { BundleError } from "../../servers/mcpb/zip-reader.js";
import type { ServerEntry } from "../../core/ports/server-config-types.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { serverPage } from "./list-page.js";

/** What the bundle handlers use: the config, where bundles go, and the servers' PATH. */
export interface BundleServices {
  configStore: Pick<ConfigStore, "current" | "upsert">;
  dataDir: string;
  serverPath: ServerPath;
  /** Bundle folders being installed, not yet named by a saved server: prune leaves them. */
  pendingBundles: Set<string>;
  serverViews(): ServerView[];
}

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

/** Checks the values and the machine and unpacks the bundle; a refused one is an ApiFailure. */
export async function installForServer(
  host: Pick<BundleServices, "configStore" | "dataDir" | "serverPath" | "pendingBundles">,
  name: string,
  bundle: string,
  values: Record<string, string | string[]>,
): Promise<{ entry: ServerEntry; dir: string }> {
  const bundleOpened = opened(bundle);
  // The name meets the config's rules before anything is unpacked.
  editFromEntry(name, { command: "x" });
  const result = await installBundle(bundleOpened, values, {
    dataDir: host.dataDir,
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
      result.problems.map((p) => ({ path: p.key ? ["values", p.key] : [], message: p.message })),
    );
  }
  const edit = editFromEntry(name, result.entry);
  return { entry: { ...edit, env: result.entry.env }, dir: result.dir };
}

/**
 * "Add from a .mcpb file": the renderer reads the file and sends its bytes; the host reads
 * the manifest (servers.readBundle, for the form), then checks the values and the machine,
 * unpacks it into the data directory and saves the server (servers.addBundle). Try it
 * (servers.tryBundle, try-handlers.ts) unpacks it the same way.
 */
export function bundleHandlers(
  host: BundleServices,
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
      if (host.configStore.current.servers.has(name)) throw nameTaken(name);
      const installed = await installForServer(host, name, bundle, values);
      try {
        await host.configStore.upsert(name, installed.entry);
      } catch (error) {
        await discardBundle(installed.dir);
        throw error;
      } finally {
        host.pendingBundles.delete(installed.dir);
      }
      return serverPage(host.serverViews());
    },
  };
}

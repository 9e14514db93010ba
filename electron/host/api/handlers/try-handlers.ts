import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { Trier } from "../../../../shared/audit-entry.js";
import { editFromEntry } from "../../servers/config/config-edits.js";
import { resolveSecrets } from "../../servers/config/config-store.js";
import { discardBundle } from "../../servers/mcpb/bundle-store.js";
import { tryServer } from "../../servers/try-server.js";
import { installForServer, type BundleServices } from "./bundle-handlers.js";
import { TryCount } from "./try-count.js";
import { recordedTry, type TryAudit } from "./try-log.js";

/**
 * What a try uses: the saved config (for kept secrets), the PATH servers start with and where a
 * tried bundle is unpacked (as an add would use them), the audit log, and the count of tries
 * running, one for every face of the app (the cap is on the processes they start).
 */
export interface TryServices {
  bundles: Pick<BundleServices, "configStore" | "dataDir" | "serverPath" | "pendingBundles">;
  audit: TryAudit;
  tries: TryCount;
  /** At the app's stop: ends the tries running, their servers with their process trees. */
  close(): Promise<void>;
}

/** The try services of a host: one TryCount for every face. */
export function tryServices(bundles: TryServices["bundles"], audit: TryAudit): TryServices {
  const tries = new TryCount();
  return { bundles, audit, tries, close: () => tries.close() };
}

/**
 * "servers.try": the entry is checked exactly as a save would check it (so a try never starts
 * what could not be saved), then started once and stopped, its whole process tree with it.
 * "servers.tryBundle" unpacks the bundle as an add would, and deletes it again. A server that
 * fails is a result with its stderr and a hint; only a request that is wrong in itself is an
 * error. Every try is in the audit log (try-log.ts); `by` is the face the handlers serve (the
 * app's IPC, the browser's WebSocket), so the log says where a try came from without trusting
 * the page.
 */
export function tryHandlers(
  services: TryServices,
  by: Trier,
): Pick<ApiHandlers, "servers.try" | "servers.tryBundle"> {
  const { bundles, audit, tries } = services;
  const { configStore, serverPath } = bundles;
  return {
    "servers.try": ({ name, previousName, entry }) => {
      const edit = editFromEntry(name, entry);
      // Editing a server: the UI holds its secrets only as references to the saved ones.
      const saved = configStore.current.servers.get(previousName ?? name);
      const resolved = resolveSecrets(name, edit, saved);
      return tries.run((signal) =>
        recordedTry({ audit, by, source: "entry", server: name }, resolved, () =>
          tryServer(resolved, { name, path: serverPath.path, signal }),
        ),
      );
    },
    "servers.tryBundle": ({ name, bundle, values }) =>
      tries.run(async (signal) => {
        const installed = await installForServer(bundles, name, bundle, values);
        try {
          return await recordedTry(
            { audit, by, source: "bundle", server: name },
            installed.entry,
            () => tryServer(installed.entry, { name, path: serverPath.path, signal }),
          );
        } finally {
          await discardBundle(installed.dir);
          bundles.pendingBundles.delete(installed.dir);
        }
      }),
  };
}

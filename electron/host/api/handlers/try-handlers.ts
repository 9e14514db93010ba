import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { TRY_SERVER_LIMITS } from "../../../../shared/limits.js";
import { editFromEntry } from "../../servers/config-edits.js";
import { resolveSecrets, type ConfigStore } from "../../servers/config-store.js";
import type { ServerPath } from "../../servers/server-path.js";
import { tryServer } from "../../servers/try-server.js";
import { ApiFailure } from "../api-failure.js";

/**
 * "servers.try": the entry is checked exactly as a save would check it (so a try never
 * starts what could not be saved), then started once and stopped. A server that fails is
 * a result with its stderr and a hint; only a request that is wrong in itself is an error.
 */
/** What a try uses: the saved config (for kept secrets) and the PATH servers start with. */
export interface TryServices {
  configStore: Pick<ConfigStore, "current">;
  serverPath: ServerPath;
}

export function tryHandlers({
  configStore,
  serverPath,
}: TryServices): Pick<ApiHandlers, "servers.try"> {
  let running = 0;
  return {
    "servers.try": async ({ name, previousName, entry }) => {
      const edit = editFromEntry(name, entry);
      // Editing a server: the UI holds its secrets only as references to the saved ones.
      const saved = configStore.current.servers.get(previousName ?? name);
      const resolved = resolveSecrets(name, edit, saved);
      if (running >= TRY_SERVER_LIMITS.concurrentMax) {
        throw new ApiFailure(
          "unavailable",
          `${running} tries are already running; wait for one to finish and try again`,
        );
      }
      running++;
      try {
        return await tryServer(resolved, { name, path: serverPath.path });
      } finally {
        running--;
      }
    },
  };
}

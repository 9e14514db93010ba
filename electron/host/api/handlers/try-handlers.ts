import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { editFromEntry } from "../../servers/config-edits.js";
import { resolveSecrets, type ConfigStore } from "../../servers/config-store.js";
import type { ServerPath } from "../../servers/server-path.js";
import { tryServer } from "../../servers/try-server.js";
import { TryCount } from "./try-count.js";

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

export function tryHandlers(
  { configStore, serverPath }: TryServices,
  tries: TryCount = new TryCount(),
): Pick<ApiHandlers, "servers.try"> {
  return {
    "servers.try": ({ name, previousName, entry }) => {
      const edit = editFromEntry(name, entry);
      // Editing a server: the UI holds its secrets only as references to the saved ones.
      const saved = configStore.current.servers.get(previousName ?? name);
      const resolved = resolveSecrets(name, edit, saved);
      return tries.run(() => tryServer(resolved, { name, path: serverPath.path }));
    },
  };
}

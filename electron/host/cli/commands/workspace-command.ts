// `codemode workspace list|put|get|rm`: the clients' named workspaces in the data directory,
// as the Sandbox page shows them. Each change is a whole new version (a run holding the
// workspace is waited for), within the app's size limit, and noted for the audit log: a
// running app takes the note at once, a stopped one when it starts (workspace-notes.ts).
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import { workspacePaths } from "../../app/index.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";
import {
  deleteWorkspaceFile,
  putWorkspaceFile,
  readWorkspaceFile,
  workspaceFiles,
} from "../../sandbox/workspaces/workspace-edits.js";
import { workspacePathParts } from "../../sandbox/workspaces/workspace-name.js";
import { noteEdit } from "../../sandbox/workspaces/workspace-notes.js";
import { WorkspaceStore } from "../../sandbox/workspaces/workspace-store.js";
import { bytesText } from "../../util/bytes-text.js";
import { dataDir } from "../../util/paths.js";
import { MiB } from "../../util/units.js";
import { terminalText } from "../../util/terminal-text.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { appSettings } from "../sandbox-context.js";

export const WORKSPACE_HELP = `Usage:
  codemode workspace list [--client C] [NAME]     the workspaces, or the files of one
  codemode workspace put --client C NAME FILE [PATH]   put a file in (made if new)
  codemode workspace get --client C NAME PATH [OUT]    a file, to OUT or standard output
  codemode workspace rm --client C NAME [PATH]    delete a file, or the whole workspace

A workspace belongs to one client (the name its MCP client gives; \`codemode serve\`'s is
"stdio"). Runs of that client that pass workspace="NAME" to run_python find its files in
/workspace.`;

/** Bytes read from a workspace at a time by `get`. */
const GET_CHUNK_BYTES = 1 * MiB;

/** Where `get` writes OUT until it is whole: beside it, so the rename stays on its disk. */
function partialPath(out: string): string {
  return path.join(
    path.dirname(out),
    `.${path.basename(out)}.${randomBytes(4).toString("hex")}.part`,
  );
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function workspaceCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { client: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  const [action, ...rest] = positionals;
  if (values.help || action === undefined) {
    writeLine(values.help ? io.stdout : io.stderr, WORKSPACE_HELP);
    return values.help ? 0 : 2;
  }
  const home = dataDir(io.env);
  const settings = await appSettings(home);
  const maxBytes = settings.workspaceMaxMiB * MiB;
  const root = workspacePaths(home).store;
  const store = new WorkspaceStore(root, () => ({
    maxBytes,
    perClient: settings.workspacesPerClient,
    keepDays: settings.workspaceKeepDays,
  }));
  const client = (): string => {
    if (values.client === undefined || values.client === "") {
      throw new UserError(`${action} needs --client C: the client the workspace belongs to`);
    }
    return values.client;
  };
  const args = (min: number, max: number, usage: string): string[] => {
    if (rest.length < min || rest.length > max) throw new UserError(`usage: ${usage}`);
    return rest;
  };
  const at = () => new Date().toISOString();
  try {
    switch (action) {
      case "list": {
        const [name] = args(0, 1, "codemode workspace list [--client C] [NAME]");
        if (name !== undefined) {
          for (const file of await workspaceFiles(store, client(), name)) {
            writeLine(
              io.stdout,
              `${terminalText(file.path)}  ${bytesText(file.bytes)}  ${file.modifiedAt}`,
            );
          }
          return 0;
        }
        const all = await store.list(values.client);
        for (const ws of all) {
          const marked = ws.private ? "  private" : "";
          writeLine(
            io.stdout,
            `${terminalText(ws.client)}  ${ws.name}  ${ws.files} files  ${bytesText(ws.bytes)}  used ${ws.usedAt}${marked}`,
          );
        }
        if (all.length === 0) writeLine(io.stdout, "no workspaces");
        return 0;
      }
      case "put": {
        const [name, file, inside] = args(
          2,
          3,
          "codemode workspace put --client C NAME FILE [PATH]",
        );
        const rel = workspacePathParts(inside ?? path.basename(file!)).join("/");
        const owner = client();
        const { size } = await stat(file!);
        const sha256 = await sha256Of(file!);
        await putWorkspaceFile(store, owner, name!, rel, file!, maxBytes);
        await noteEdit(root, {
          ...{ client: owner, workspace: name!, action: "file_added", path: rel },
          ...{ bytes: size, sha256, at: at() },
        });
        writeLine(io.stdout, `put ${rel} (${bytesText(size)}) into ${owner}'s workspace ${name}`);
        return 0;
      }
      case "get": {
        const [name, inside, out] = args(2, 3, "codemode workspace get --client C NAME PATH [OUT]");
        const owner = client();
        const read = (offset: number, fileId?: string) =>
          readWorkspaceFile(store, owner, name!, inside!, offset, GET_CHUNK_BYTES, fileId);
        // The first chunk is read before OUT is touched: a wrong name leaves a file there as it
        // was. OUT is written beside itself and renamed over once whole.
        let chunk = await read(0);
        const partial = out === undefined ? null : partialPath(out);
        const target: Writable =
          partial === null ? io.stdout : createWriteStream(partial, { flags: "wx" });
        try {
          let offset = 0;
          for (;;) {
            if (chunk.data.length > 0 && !target.write(chunk.data)) {
              await new Promise((resolve) => target.once("drain", resolve));
            }
            offset += chunk.data.length;
            if (chunk.data.length === 0 || offset >= chunk.total) break;
            chunk = await read(offset, chunk.fileId);
          }
          if (partial !== null) {
            target.end();
            await finished(target);
            await rename(partial, out!);
          }
        } catch (error) {
          if (partial !== null) {
            target.destroy();
            await rm(partial, { force: true });
          }
          throw error;
        }
        return 0;
      }
      case "rm": {
        const [name, inside] = args(1, 2, "codemode workspace rm --client C NAME [PATH]");
        const owner = client();
        if (inside === undefined) {
          await store.remove(owner, name!);
          await noteEdit(root, {
            ...{ client: owner, workspace: name!, action: "workspace_removed", at: at() },
          });
          writeLine(io.stdout, `deleted ${owner}'s workspace ${name}`);
          return 0;
        }
        const rel = workspacePathParts(inside).join("/");
        await deleteWorkspaceFile(store, owner, name!, rel);
        await noteEdit(root, {
          ...{ client: owner, workspace: name!, action: "file_removed", path: rel, at: at() },
        });
        writeLine(io.stdout, `removed ${rel} from ${owner}'s workspace ${name}`);
        return 0;
      }
      default:
        throw new UserError(`unknown action ${JSON.stringify(action)}\n\n${WORKSPACE_HELP}`);
    }
  } catch (error) {
    // A bad name, no such workspace, over the limit: said as the store says it.
    if (error instanceof RunNotStarted) throw new UserError(error.message);
    throw error;
  }
}

// Files between the page and the host in chunks the API carries (base64 in JSON), and handing
// a downloaded file to the browser to save.
import type { ApiClient } from "../../../shared/api/api-contract.js";
import { WORKSPACE_LIMITS } from "../../../shared/limits.js";

function toBase64(bytes: Uint8Array): string {
  let text = "";
  // In pieces: String.fromCharCode takes its arguments on the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(text);
}

export function fromBase64(data: string): Uint8Array<ArrayBuffer> {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** Hands `bytes` to the browser to save as `name`. */
export function saveFile(name: string, parts: BlobPart[], mimeType = "application/octet-stream") {
  const url = URL.createObjectURL(new Blob(parts, { type: mimeType }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Puts `file` into a workspace, chunk by chunk; the error message when the host refused. */
export async function uploadToWorkspace(
  api: ApiClient,
  target: { client: string; workspace: string },
  file: File,
): Promise<string | null> {
  let uploadId: string | undefined;
  let offset = 0;
  for (;;) {
    const end = Math.min(file.size, offset + WORKSPACE_LIMITS.transferChunkBytes);
    const chunk = new Uint8Array(await file.slice(offset, end).arrayBuffer());
    const last = end >= file.size;
    const response = await api.request("workspaces.upload", {
      ...target,
      path: file.name,
      ...(uploadId === undefined ? {} : { uploadId }),
      offset,
      data: toBase64(chunk),
      last,
    });
    if (!response.ok) return response.error.message;
    uploadId = response.value.uploadId;
    offset = end;
    if (last) return null;
  }
}

/** A workspace's file, read chunk by chunk and saved; the error message when it failed. */
export async function downloadFromWorkspace(
  api: ApiClient,
  target: { client: string; workspace: string; path: string },
): Promise<string | null> {
  const parts: BlobPart[] = [];
  let offset = 0;
  let fileId: string | undefined;
  for (;;) {
    const response = await api.request("workspaces.read", {
      ...target,
      offset,
      ...(fileId === undefined ? {} : { fileId }),
    });
    if (!response.ok) return response.error.message;
    fileId = response.value.fileId;
    const bytes = fromBase64(response.value.data);
    parts.push(bytes);
    offset += bytes.length;
    if (bytes.length === 0 || offset >= response.value.total) break;
  }
  saveFile(target.path.split("/").pop() ?? "file", parts);
  return null;
}

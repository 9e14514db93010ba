// The files a run attached with attach(path): their names, sizes and hashes from the log, each
// downloadable while Code Mode still keeps it (as long as the log keeps its entries).
import { useState } from "react";
import type { RunFinishedEntry } from "../../../../shared/audit-entry.js";
import { useApi } from "../../api/hooks.js";
import { fromBase64, saveFile } from "../../lib/file-transfer.js";
import { formatBytes } from "../../lib/format.js";

export function RunFiles(props: { files: RunFinishedEntry["files"] }) {
  const api = useApi();
  const [problem, setProblem] = useState<string | null>(null);
  const files = props.files ?? [];
  if (files.length === 0) return null;
  const download = async (uri: string) => {
    const response = await api.request("attachments.read", { uri });
    if (!response.ok) {
      setProblem(response.error.message);
      return;
    }
    const { name, mimeType, data } = response.value;
    saveFile(name, [fromBase64(data)], mimeType);
    setProblem(null);
  };
  return (
    <>
      <h3 className="detail-heading">
        Attached files <span className="muted">({files.length})</span>
      </h3>
      <ul className="small" aria-label="Files the run attached">
        {files.map((file) => (
          <li key={file.uri} className="wrap-anywhere">
            {file.name} · {file.mimeType} · {formatBytes(file.bytes)} · sha256{" "}
            {file.sha256.slice(0, 12)}…{" "}
            <button
              type="button"
              className="button"
              aria-label={`Download ${file.name}`}
              onClick={() => void download(file.uri)}
            >
              Download
            </button>
          </li>
        ))}
      </ul>
      {problem ? <p className="field-error">{problem}</p> : null}
    </>
  );
}

// The clients' workspaces: what each holds (files, sizes, when last used), files dropped onto
// one to put them in, each file downloaded or deleted, a whole workspace deleted. Every change
// here is on the record (workspace_edited, by you).
import { useState, type DragEvent } from "react";
import type { WorkspaceView } from "../../../../shared/api/api-views.js";
import { useApi, useMutation, useRequest } from "../../api/hooks.js";
import { Badge } from "../../components/badge.js";
import { EmptyState, ErrorState, Loading } from "../../components/states.js";
import { downloadFromWorkspace, uploadToWorkspace } from "../../lib/file-transfer.js";
import { formatBytes, formatRelative, plural } from "../../lib/format.js";

export function WorkspacesCard() {
  const list = useRequest("workspaces.list", {});
  const [open, setOpen] = useState<string | null>(null);
  const key = (ws: WorkspaceView) => `${ws.client}\0${ws.name}`;
  return (
    <section className="card" aria-labelledby="workspaces-heading">
      <div className="card-header">
        <h2 id="workspaces-heading" className="card-title">
          Workspaces
        </h2>
        <button type="button" className="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <p className="card-text muted small">
        A run that names a workspace finds its files at /workspace and leaves them there for that AI
        app&apos;s next run with the same name. Each app has its own workspaces.
      </p>
      {list.data === undefined ? (
        list.error ? (
          <ErrorState error={list.error} onRetry={list.reload} compact />
        ) : (
          <Loading label="Reading workspaces…" />
        )
      ) : list.data.length === 0 ? (
        <EmptyState title="No workspaces yet">
          An AI app makes one by passing workspace=&quot;NAME&quot; to run_python.
        </EmptyState>
      ) : (
        <ul className="workspace-list" aria-label="Workspaces">
          {list.data.map((ws) => (
            <WorkspaceRow
              key={key(ws)}
              ws={ws}
              open={open === key(ws)}
              onToggle={() => setOpen(open === key(ws) ? null : key(ws))}
              onChanged={(next) => (next ? list.setData(next) : list.reload())}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function WorkspaceRow(props: {
  ws: WorkspaceView;
  open: boolean;
  onToggle: () => void;
  onChanged: (next?: WorkspaceView[]) => void;
}) {
  const { ws } = props;
  const api = useApi();
  const remove = useMutation("workspaces.delete");
  const [confirming, setConfirming] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const label = `${ws.name} of ${ws.client}`;

  const upload = async (files: File[]) => {
    for (const file of files) {
      setNote(`Adding ${file.name}…`);
      const problem = await uploadToWorkspace(api, { client: ws.client, workspace: ws.name }, file);
      if (problem !== null) {
        setNote(`${file.name} was not added: ${problem}`);
        props.onChanged();
        return;
      }
    }
    setNote(`Added ${plural(files.length, "file")}.`);
    props.onChanged();
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void upload([...event.dataTransfer.files]);
  };

  return (
    <li
      className={`workspace-row${dragging ? " workspace-drop" : ""}`}
      aria-label={label}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <div className="workspace-summary">
        <button
          type="button"
          className="button"
          aria-expanded={props.open}
          onClick={props.onToggle}
        >
          {ws.name}
        </button>
        <span className="muted small">
          {ws.client} · {plural(ws.files, "file")} · {formatBytes(ws.bytes)} · used{" "}
          {formatRelative(ws.usedAt)}
        </span>
        {ws.private ? (
          <Badge tone="private" title="A run that opens it can call only private tools">
            Private data
          </Badge>
        ) : null}
        {confirming ? (
          <span>
            <button
              type="button"
              className="button button-danger"
              disabled={remove.busy}
              onClick={() =>
                void remove.run({ client: ws.client, workspace: ws.name }).then((response) => {
                  setConfirming(false);
                  props.onChanged(response.ok ? response.value : undefined);
                })
              }
            >
              Delete {ws.name} and its files
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" className="button" onClick={() => setConfirming(true)}>
            Delete workspace
          </button>
        )}
      </div>
      {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
      {note ? (
        <p className="muted small" role="status">
          {note}
        </p>
      ) : null}
      {props.open ? (
        <WorkspaceFiles
          // Read again whenever the workspace changed (a run, an upload, a deletion).
          key={`${ws.files}:${ws.bytes}:${ws.usedAt}`}
          ws={ws}
          onChanged={props.onChanged}
          onAdd={(files) => void upload(files)}
        />
      ) : null}
    </li>
  );
}

function WorkspaceFiles(props: {
  ws: WorkspaceView;
  onChanged: (next?: WorkspaceView[]) => void;
  onAdd: (files: File[]) => void;
}) {
  const { ws } = props;
  const api = useApi();
  const target = { client: ws.client, workspace: ws.name };
  const files = useRequest("workspaces.files", target);
  const removeFile = useMutation("workspaces.deleteFile");
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="workspace-files">
      {files.data === undefined ? (
        files.error ? (
          <ErrorState error={files.error} onRetry={files.reload} compact />
        ) : (
          <Loading label="Reading files…" />
        )
      ) : (
        <ul aria-label={`Files of ${ws.name}`}>
          {files.data.map((file) => (
            <li key={file.path} aria-label={file.path}>
              <span className="wrap-anywhere">{file.path}</span>{" "}
              <span className="muted small">
                {formatBytes(file.bytes)} · {formatRelative(file.modifiedAt)}
              </span>{" "}
              <button
                type="button"
                className="button"
                onClick={() =>
                  void downloadFromWorkspace(api, { ...target, path: file.path }).then(setProblem)
                }
              >
                Download
              </button>{" "}
              <button
                type="button"
                className="button"
                disabled={removeFile.busy}
                onClick={() =>
                  void removeFile.run({ ...target, path: file.path }).then((response) => {
                    if (response.ok) props.onChanged(response.value);
                    files.reload();
                  })
                }
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem || removeFile.error ? (
        <p className="field-error">{problem ?? removeFile.error?.message}</p>
      ) : null}
      <label className="button">
        Add files…
        <input
          type="file"
          multiple
          hidden
          onChange={(event) => {
            props.onAdd([...(event.target.files ?? [])]);
            event.target.value = "";
          }}
        />
      </label>
      <p className="muted small">Or drop files onto the workspace.</p>
    </div>
  );
}

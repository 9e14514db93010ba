// "Add server" starts here: a searchable gallery of the well-known servers shipped with the
// app. The blank form, "Paste JSON" and MCP Bundles stay one click away for everything else.
import { useState } from "react";
import type { CatalogEntry } from "../../../../shared/server-catalog/catalog-schema.js";
import { searchCatalog } from "../../../../shared/server-catalog/server-catalog.js";
import { SERVER_CATALOG_LIMITS } from "../../../../shared/limits.js";
import { Dialog } from "../../components/dialog.js";

const RUNNERS: Record<CatalogEntry["command"], string> = {
  npx: "Node.js",
  uvx: "uv (Python)",
  docker: "Docker",
};

export function CatalogGalleryDialog(props: {
  onClose: () => void;
  onChoose: (entry: CatalogEntry) => void;
  onBlankForm: () => void;
  onPasteJson: () => void;
  onBundle: () => void;
}) {
  const [query, setQuery] = useState("");
  const found = searchCatalog(query);
  return (
    <Dialog
      wide
      title="Add server"
      onClose={props.onClose}
      description="Pick a well-known server: Code Mode knows how to start it and asks only for what it needs."
      actions={
        <>
          <button type="button" className="button" onClick={props.onBundle}>
            Add from a .mcpb file
          </button>
          <button type="button" className="button" onClick={props.onPasteJson}>
            Paste JSON
          </button>
          <button type="button" className="button" onClick={props.onBlankForm}>
            Blank form
          </button>
        </>
      }
    >
      <div className="gallery">
        <input
          className="input"
          type="search"
          aria-label="Search servers"
          placeholder="Search: files, GitHub, database, web…"
          value={query}
          maxLength={SERVER_CATALOG_LIMITS.searchMaxChars}
          onChange={(e) => setQuery(e.target.value)}
          autoFocus
        />
        {found.length === 0 ? (
          <p className="muted">
            No well-known server matches “{query}”. Use the blank form, or paste the JSON from the
            server&rsquo;s instructions.
          </p>
        ) : (
          <ul className="gallery-grid" aria-label="Well-known servers">
            {found.map((entry) => (
              <li key={entry.id}>
                <button
                  type="button"
                  className="gallery-card"
                  onClick={() => props.onChoose(entry)}
                  aria-label={entry.name}
                >
                  <span className="gallery-card-title">{entry.name}</span>
                  <span className="gallery-card-text">{entry.description}</span>
                  <span className="gallery-card-meta">
                    <span className="badge badge-neutral">{RUNNERS[entry.command]}</span>
                    {entry.settings.some((s) => s.kind === "secret") ? (
                      <span className="badge badge-info">needs a key</span>
                    ) : null}
                    {entry.private ? (
                      <span className="badge badge-private">private data</span>
                    ) : null}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}

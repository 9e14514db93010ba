// The images a run attached with show(): thumbnails while the host still holds their bytes
// (recent runs, in memory only), else what the log keeps of them (name, size, hash).
import type { RunFinishedEntry } from "../../../../shared/audit-entry.js";
import type { AuditRunImage } from "../../../../shared/audit-query-types.js";
import { formatBytes } from "../../lib/format.js";

export function RunImages(props: {
  logged: RunFinishedEntry["images"];
  held: AuditRunImage[] | undefined;
}) {
  const logged = props.logged ?? [];
  const held = props.held ?? [];
  if (logged.length === 0 && held.length === 0) return null;
  const heldHashes = new Set(held.map((image) => image.sha256));
  const notHeld = logged.filter((image) => !heldHashes.has(image.sha256));
  return (
    <>
      <h3 className="detail-heading">
        Images <span className="muted">({Math.max(logged.length, held.length)})</span>
      </h3>
      {held.length > 0 ? (
        <ul className="run-images" aria-label="Images the run attached">
          {held.map((image) => (
            <li key={image.sha256 + image.name} className="run-image">
              <a
                href={`data:image/png;base64,${image.pngBase64}`}
                download={image.name}
                title={`Save ${image.name}`}
              >
                <img
                  src={`data:image/png;base64,${image.pngBase64}`}
                  alt={image.name}
                  width={image.width}
                  height={image.height}
                  className="run-image-thumb"
                />
              </a>
              <span className="small wrap-anywhere">
                {image.name} · {image.width}×{image.height} · {formatBytes(image.bytes)}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {notHeld.length > 0 ? (
        <>
          <ul className="muted small">
            {notHeld.map((image) => (
              <li key={image.sha256 + image.name} className="wrap-anywhere">
                {image.name} · {formatBytes(image.bytes)} · sha256 {image.sha256.slice(0, 12)}…
              </li>
            ))}
          </ul>
          <p className="muted small">
            The log keeps each image&apos;s size and hash, not the image; Code Mode shows the images
            of recent runs only while it runs.
          </p>
        </>
      ) : null}
    </>
  );
}

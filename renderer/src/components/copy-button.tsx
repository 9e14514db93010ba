import { useEffect, useState } from "react";

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Older engines or a denied permission: the textarea trick still works in most.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export function CopyButton(props: {
  text: string;
  label?: string;
  ariaLabel?: string;
  className?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const label = props.label ?? "Copy";
  return (
    <span className="copy-wrap">
      <button
        type="button"
        className={props.className ?? "button button-small"}
        aria-label={props.ariaLabel}
        onClick={() => {
          void copyText(props.text).then((ok) => setState(ok ? "copied" : "failed"));
        }}
      >
        {label}
      </button>
      <span className={`copy-feedback copy-${state}`} role="status">
        {state === "copied"
          ? "Copied"
          : state === "failed"
            ? "Could not copy: select the text instead"
            : ""}
      </span>
    </span>
  );
}

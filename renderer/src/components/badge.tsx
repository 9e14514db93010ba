import type { ReactNode } from "react";

export type Tone = "ok" | "warn" | "bad" | "info" | "neutral" | "private";

/** A small coloured label; the colour never carries the meaning alone: the text does. */
export function Badge(props: { tone: Tone; children: ReactNode; dot?: boolean; title?: string }) {
  return (
    <span className={`badge badge-${props.tone}`} title={props.title}>
      {props.dot ? <span className="badge-dot" aria-hidden="true" /> : null}
      {props.children}
    </span>
  );
}

// The first screen's short checklist: add a server, connect a client, see the first run in the
// audit log. Each step ticks itself as it happens (the servers list, the clients list and the
// audit log are all live), and the list goes away once all three are done.
import { useEffect, useState } from "react";
import type { AuditKind } from "../../../shared/audit-entry.js";
import { useApi, useEvent, useLiveList } from "../api/hooks.js";
import { hrefFor } from "../lib/router.js";

/** Whether the log holds an entry of `kind`: asked once, then told by the live feed. */
function useLogHas(kind: AuditKind): boolean {
  const api = useApi();
  const [has, setHas] = useState(false);
  useEffect(() => {
    let live = true;
    void api.request("audit.query", { filter: { kinds: [kind] }, limit: 1 }).then((response) => {
      if (live && response.ok && response.value.entries.length > 0) setHas(true);
    });
    return () => {
      live = false;
    };
  }, [api, kind]);
  useEvent("audit.entry", (entry) => {
    if (entry.kind === kind) setHas(true);
  });
  return has;
}

export function FirstSteps() {
  const servers = useLiveList("servers.list", "servers.changed");
  const clients = useLiveList("clients.list", "clients.changed");
  const clientSeen = useLogHas("client_connected");
  const ran = useLogHas("run_started");
  if (!servers.data || !clients.data) return null;
  const steps = [
    {
      done: servers.data.total > 0,
      title: "Add a server",
      text: "Choose the tools your assistant may use: files, notes, a browser…",
      href: hrefFor("servers", { add: "1" }),
    },
    {
      done: clients.data.total > 0 || clientSeen,
      title: "Connect a client",
      text: "Add Code Mode to Claude Desktop with one button, or copy the setup for another app.",
      href: hrefFor("clients"),
    },
    {
      done: ran,
      title: "See the first run in the audit log",
      text: "Ask your assistant to do something with those tools, then watch every call it makes.",
      href: hrefFor("audit"),
    },
  ];
  if (steps.every((step) => step.done)) return null;
  const left = steps.filter((step) => !step.done).length;
  return (
    <section className="card first-steps" aria-labelledby="first-steps-heading">
      <div className="card-header">
        <h2 id="first-steps-heading" className="card-title">
          Getting started
        </h2>
        <span className="muted small">{3 - left} of 3 done</span>
      </div>
      <ol className="first-steps-list">
        {steps.map((step) => (
          <li
            key={step.title}
            className={`first-step${step.done ? " is-done" : ""}`}
            aria-label={`${step.title}: ${step.done ? "done" : "to do"}`}
          >
            <span className="first-step-mark" aria-hidden="true">
              {step.done ? "✓" : ""}
            </span>
            <div>
              {step.done ? (
                <strong>{step.title}</strong>
              ) : (
                <a href={step.href}>
                  <strong>{step.title}</strong>
                </a>
              )}
              <p className="muted small">{step.text}</p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}

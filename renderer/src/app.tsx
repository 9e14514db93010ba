// The shell: sidebar, header with app status, banners, and the page the hash names.
import { useEffect, useId, type ReactNode } from "react";
import { useConnection, useLiveList, useMutation } from "./api/hooks.js";
import {
  ConnectionBanner,
  PausedBanner,
  StartupProblemsBanner,
  TaintSummary,
} from "./components/banners.js";
import { ApprovalPanel } from "./components/approval-panel.js";
import { Badge, type Tone } from "./components/badge.js";
import {
  AuditIcon,
  ClientsIcon,
  LogoMark,
  MoonIcon,
  PauseIcon,
  SandboxIcon,
  ServersIcon,
  SetupIcon,
  SunIcon,
} from "./components/icons.js";
import { Loading } from "./components/states.js";
import { hrefFor, navigate, parseHash, useRoute, type PageId } from "./lib/router.js";
import { useSidebar } from "./lib/sidebar.js";
import { useTheme } from "./lib/theme.js";
import { AuditPage } from "./pages/audit-page.js";
import { ClientsPage } from "./pages/clients-page.js";
import { FirstRunPage } from "./pages/first-run-page.js";
import { SandboxPage } from "./pages/sandbox-page.js";
import { ServersPage } from "./pages/servers-page.js";
import { AppStateProvider, useAppState } from "./state/app-state.js";

const PAGE_TITLES: Record<PageId, string> = {
  "first-run": "First run",
  servers: "Servers",
  sandbox: "Sandbox",
  clients: "Clients",
  audit: "Audit log",
};

export function App() {
  return (
    <AppStateProvider>
      <Shell />
    </AppStateProvider>
  );
}

function Shell() {
  const route = useRoute();
  const { needsSetup, docker, image } = useAppState();
  // When the status cannot be read at all, go on to Servers, which shows the error.
  const setupKnown = needsSetup ?? (docker.error || image.error ? false : null);

  // No page in the link: First run while Docker or the image is not ready, else Servers.
  useEffect(() => {
    if (route.page !== null || setupKnown === null) return;
    // The link as it is now, not as it was at the render: a page chosen between the render and
    // this effect (a click as the status arrives) must not be replaced.
    if (parseHash(window.location.hash).page !== null) return;
    navigate(setupKnown ? "first-run" : "servers", undefined, { replace: true });
  }, [route.page, setupKnown]);

  const page = route.page;
  const serverName = page === "servers" ? route.params.get("name") : null;
  useEffect(() => {
    document.title = page ? `${PAGE_TITLES[page]} · Code Mode` : "Code Mode";
  }, [page]);
  // A new page starts at its top, not where the last one was scrolled to.
  useEffect(() => {
    document.getElementById("content")?.scrollTo({ top: 0 });
  }, [page, serverName]);

  const sidebar = useSidebar();
  return (
    <div className={`app${sidebar.collapsed ? " is-collapsed" : ""}`}>
      <a className="skip-link" href="#content" onClick={skipToContent}>
        Skip to content
      </a>
      <Sidebar
        current={page}
        showSetup={needsSetup === true || page === "first-run"}
        collapsed={sidebar.collapsed}
        onToggle={sidebar.toggle}
      />
      <div className="main">
        <Header title={page ? PAGE_TITLES[page] : "Code Mode"} />
        <div className="banners">
          <ConnectionBanner />
          <StartupProblemsBanner />
          <PausedBanner />
          <TaintSummary />
          <ApprovalPanel />
        </div>
        <main id="content" className="content" tabIndex={-1}>
          {page === null ? <Loading label="Starting…" /> : <PageContent page={page} />}
        </main>
      </div>
    </div>
  );
}

function skipToContent(event: React.MouseEvent) {
  // The hash is the router's: move focus without touching it.
  event.preventDefault();
  document.getElementById("content")?.focus();
}

function PageContent(props: { page: PageId }) {
  switch (props.page) {
    case "first-run":
      return <FirstRunPage />;
    case "servers":
      return <ServersPage />;
    case "sandbox":
      return <SandboxPage />;
    case "clients":
      return <ClientsPage />;
    case "audit":
      return <AuditPage />;
  }
}

function Sidebar(props: {
  current: PageId | null;
  showSetup: boolean;
  collapsed: boolean;
  onToggle: () => void;
}) {
  const servers = useLiveList("servers.list", "servers.changed");
  const clients = useLiveList("clients.list", "clients.changed");
  // Counts of the whole lists, which the first pages carry.
  const failed = servers.data?.failed ?? 0;
  const connected = clients.data?.total ?? 0;
  const { info } = useAppState();

  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <LogoMark />
        <span className="brand-name">Code Mode</span>
      </div>
      <ul className="nav-list">
        {props.showSetup ? (
          <NavItem
            page="first-run"
            current={props.current}
            icon={<SetupIcon />}
            label="First run"
          />
        ) : null}
        <NavItem
          page="servers"
          current={props.current}
          icon={<ServersIcon />}
          label="Servers"
          description={failed > 0 ? `${failed} failed` : undefined}
          extra={
            failed > 0 ? (
              <span
                className="nav-count nav-count-bad"
                title={`${failed} failed`}
                aria-hidden="true"
              >
                {failed}
              </span>
            ) : null
          }
        />
        <NavItem page="sandbox" current={props.current} icon={<SandboxIcon />} label="Sandbox" />
        <NavItem
          page="clients"
          current={props.current}
          icon={<ClientsIcon />}
          label="Clients"
          description={connected > 0 ? `${connected} connected` : undefined}
          extra={
            connected > 0 ? (
              <span className="nav-count" title={`${connected} connected`} aria-hidden="true">
                {connected}
              </span>
            ) : null
          }
        />
        <NavItem page="audit" current={props.current} icon={<AuditIcon />} label="Audit log" />
      </ul>
      <div className="sidebar-footer">
        <button
          type="button"
          className="icon-button sidebar-toggle"
          aria-expanded={!props.collapsed}
          aria-label={props.collapsed ? "Show the sidebar's labels" : "Shrink the sidebar to icons"}
          title={props.collapsed ? "Show labels" : "Icons only"}
          onClick={props.onToggle}
        >
          <span aria-hidden="true">{props.collapsed ? "»" : "«"}</span>
        </button>
        <span className="sidebar-version">{info.data ? `Version ${info.data.version}` : null}</span>
      </div>
    </nav>
  );
}

function NavItem(props: {
  page: PageId;
  current: PageId | null;
  icon: ReactNode;
  label: string;
  extra?: ReactNode;
  /** Read after the link's name (e.g. "1 failed"), kept out of the name itself. */
  description?: string;
}) {
  const active = props.page === props.current;
  const descriptionId = useId();
  return (
    <li>
      <a
        className={`nav-link${active ? " is-active" : ""}`}
        href={hrefFor(props.page)}
        aria-current={active ? "page" : undefined}
        aria-describedby={props.description ? descriptionId : undefined}
      >
        {props.icon}
        <span className="nav-label">{props.label}</span>
        {props.extra}
      </a>
      {props.description ? (
        <span id={descriptionId} className="visually-hidden">
          {props.description}
        </span>
      ) : null}
    </li>
  );
}

function useAppStatus(): { tone: Tone; text: string; detail: string } {
  const connection = useConnection();
  const { info, docker, image, build } = useAppState();
  if (connection.state !== "open" && connection.state !== "connecting") {
    return {
      tone: "bad",
      text: "Disconnected",
      detail: "The UI lost its connection to Code Mode.",
    };
  }
  if (!info.data || !docker.data) return { tone: "neutral", text: "Connecting…", detail: "" };
  if (info.data.paused) {
    return { tone: "warn", text: "Paused", detail: "New runs are refused until you resume." };
  }
  if (docker.data.state === "not-installed") {
    return { tone: "bad", text: "Docker not installed", detail: "Runs need Docker." };
  }
  if (docker.data.state === "not-running") {
    return { tone: "bad", text: "Docker not running", detail: "Runs need Docker." };
  }
  if (docker.data.state === "unreachable") {
    return {
      tone: "bad",
      text: "Docker not reachable",
      detail: "Runs are refused until Docker is back; Code Mode reconnects by itself.",
    };
  }
  if (build.running) return { tone: "info", text: "Building image…", detail: "" };
  if (image.data && !image.data.present) {
    return {
      tone: "warn",
      text: "Image not built",
      detail: "Build the sandbox image to run code.",
    };
  }
  return { tone: "ok", text: "Ready", detail: "Clients can run code." };
}

function Header(props: { title: string }) {
  const status = useAppStatus();
  const { info } = useAppState();
  const pause = useMutation("app.setPaused");
  const { theme, toggle } = useTheme();
  const paused = info.data?.paused ?? false;
  const nextTheme = theme === "dark" ? "light" : "dark";

  return (
    <header className="topbar">
      <h1 className="page-title">{props.title}</h1>
      <div className="topbar-actions">
        <div className="app-status" role="status" aria-label="App status" title={status.detail}>
          <Badge tone={status.tone} dot>
            {status.text}
          </Badge>
        </div>
        {info.data && !paused ? (
          <button
            type="button"
            className="button button-small"
            disabled={pause.busy}
            title="Refuse new runs until you resume"
            onClick={() => {
              void pause.run({ paused: true }).then((r) => {
                if (r.ok) info.setData(r.value);
              });
            }}
          >
            <PauseIcon />
            Pause runs
          </button>
        ) : null}
        <button
          type="button"
          className="icon-button"
          onClick={toggle}
          aria-label={`Switch to ${nextTheme} theme`}
          title={`Switch to ${nextTheme} theme`}
        >
          {theme === "dark" ? <SunIcon /> : <MoonIcon />}
        </button>
      </div>
      {pause.error ? (
        <p className="topbar-error" role="alert">
          {pause.error.message}
        </p>
      ) : null}
    </header>
  );
}

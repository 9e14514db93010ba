// A few line icons (24x24, stroke = currentColor). Always decorative: aria-hidden.
import type { ReactNode } from "react";

function Icon(props: { children: ReactNode; size?: number }) {
  const size = props.size ?? 18;
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {props.children}
    </svg>
  );
}

export const ServersIcon = () => (
  <Icon>
    <rect x="3" y="4" width="18" height="7" rx="2" />
    <rect x="3" y="13" width="18" height="7" rx="2" />
    <path d="M7 7.5h.01M7 16.5h.01" />
  </Icon>
);

export const SandboxIcon = () => (
  <Icon>
    <path d="M21 8 12 3 3 8v8l9 5 9-5V8Z" />
    <path d="m3 8 9 5 9-5M12 13v8" />
  </Icon>
);

export const ClientsIcon = () => (
  <Icon>
    <path d="M9 7V3M15 7V3" />
    <path d="M6 7h12v4a6 6 0 0 1-12 0V7Z" />
    <path d="M12 17v4" />
  </Icon>
);

export const AuditIcon = () => (
  <Icon>
    <path d="M8 6h13M8 12h13M8 18h13" />
    <path d="M3 6h.01M3 12h.01M3 18h.01" />
  </Icon>
);

export const SetupIcon = () => (
  <Icon>
    <path d="M12 3v3M12 18v3M3 12h3M18 12h3" />
    <circle cx="12" cy="12" r="4" />
  </Icon>
);

export const SunIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </Icon>
);

export const MoonIcon = () => (
  <Icon>
    <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z" />
  </Icon>
);

export const PauseIcon = () => (
  <Icon size={16}>
    <path d="M9 5v14M15 5v14" />
  </Icon>
);

export const PlayIcon = () => (
  <Icon size={16}>
    <path d="M7 4.5v15l12-7.5-12-7.5Z" />
  </Icon>
);

export const ShieldIcon = () => (
  <Icon size={20}>
    <path d="M12 3 4 6v6c0 4.5 3.4 8.2 8 9 4.6-.8 8-4.5 8-9V6l-8-3Z" />
    <path d="M12 8v4M12 15.5h.01" />
  </Icon>
);

export const LogoMark = () => (
  <svg width="28" height="28" viewBox="0 0 28 28" aria-hidden="true" focusable="false">
    <rect width="28" height="28" rx="7" fill="var(--accent)" />
    <path
      d="M11 9.5 7 14l4 4.5M17 9.5l4 4.5-4 4.5"
      fill="none"
      stroke="var(--accent-contrast)"
      strokeWidth="2.2"
      strokeLinecap="round"
      strokeLinejoin="round"
    />
  </svg>
);

// Holds back the host's answers to chosen API channels on a page's socket, as a host slow to
// answer them would, so a test can see what the page shows while they are on their way; then
// lets them through. Every other message passes at once. Set it up before the page connects
// (before goto or reload): it applies to the sockets opened after it.
import type { Page, WebSocketRoute } from "playwright-core";

export interface HeldAnswers {
  /** How many answers are held now. */
  held(): number;
  /** Lets the held answers through, and every later one. */
  release(): void;
}

interface Framed {
  type?: unknown;
  id?: unknown;
  channel?: unknown;
}

function framed(message: string | Buffer): Framed | null {
  if (typeof message !== "string") return null;
  try {
    const value: unknown = JSON.parse(message);
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}

export async function holdAnswers(page: Page, channels: readonly string[]): Promise<HeldAnswers> {
  let holding = true;
  const held: (() => void)[] = [];
  await page.routeWebSocket(/\/api$/, (route: WebSocketRoute) => {
    const host = route.connectToServer();
    const asked = new Set<unknown>();
    route.onMessage((message) => {
      const request = framed(message);
      if (request?.type === "request" && channels.includes(String(request.channel))) {
        asked.add(request.id);
      }
      host.send(message);
    });
    host.onMessage((message) => {
      const deliver = () => route.send(message);
      const answer = framed(message);
      if (holding && answer?.type === "response" && asked.has(answer.id)) held.push(deliver);
      else deliver();
    });
  });
  return {
    held: () => held.length,
    release() {
      holding = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}

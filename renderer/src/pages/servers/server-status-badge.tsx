import type { ServerView } from "../../../../shared/api/api-views.js";
import { Badge } from "../../components/badge.js";

export function ServerStatusBadge(props: { server: ServerView }) {
  const { server } = props;
  if (server.restarting) {
    return (
      <Badge tone="info" dot>
        Restarting
      </Badge>
    );
  }
  switch (server.status) {
    case "ready":
      return (
        <Badge tone="ok" dot>
          Ready
        </Badge>
      );
    case "starting":
      return (
        <Badge tone="info" dot>
          Starting
        </Badge>
      );
    case "failed":
      return (
        <Badge tone="bad" dot>
          Failed
        </Badge>
      );
    case "stopped":
      return (
        <Badge tone="neutral" dot>
          Stopped
        </Badge>
      );
  }
}

// App-wide live state that several pages and the shell share: app info, Docker, the sandbox
// image and its build, private-data (taint) records. One subscription each, here.
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import type { ApiError } from "../../../shared/api/api-contract.js";
import type {
  AppInfoView,
  DockerStatusView,
  ImageStatusView,
  ListPage,
  TaintView,
} from "../../../shared/api/api-views.js";
import {
  useApi,
  useEvent,
  useLive,
  useLiveList,
  useRequest,
  type RequestState,
} from "../api/hooks.js";

/** Lines of build output kept in memory for the log view. */
const BUILD_LOG_MAX_LINES = 5000;

export interface BuildState {
  running: boolean;
  step: number | null;
  total: number | null;
  stepText: string | null;
  log: string[];
  /** Lines dropped from the start of the log to keep it bounded. */
  droppedLines: number;
  result: { ok: boolean; tag: string; error: string | null } | null;
  startError: ApiError | null;
}

const IDLE: BuildState = {
  running: false,
  step: null,
  total: null,
  stepText: null,
  log: [],
  droppedLines: 0,
  result: null,
  startError: null,
};

interface AppStateValue {
  info: RequestState<AppInfoView>;
  docker: RequestState<DockerStatusView>;
  image: RequestState<ImageStatusView>;
  /** The first page of the clients in private-data mode (with how many there are in all). */
  taint: RequestState<ListPage<TaintView>>;
  build: BuildState;
  /** Starts a build; `baseFrom` names a `docker save` archive holding the base image. */
  startBuild: (baseFrom?: string) => Promise<void>;
  /** Docker or the image is not ready: the First run page is offered. */
  needsSetup: boolean | null;
}

const AppStateContext = createContext<AppStateValue | null>(null);

export function AppStateProvider(props: { children: ReactNode }) {
  const api = useApi();
  const info = useLive("app.info", {}, "app.changed");
  const docker = useLive("docker.status", {}, "docker.changed");
  const image = useRequest("image.status", {});
  const taint = useLiveList("taint.list", "taint.changed");
  const [build, setBuild] = useState<BuildState>(IDLE);
  const reloadImage = image.reload;

  useEvent("image.build", (progress) => {
    setBuild((state) => {
      switch (progress.kind) {
        case "step":
          return {
            ...state,
            running: true,
            result: null,
            step: progress.step,
            total: progress.total,
            stepText: progress.text,
          };
        case "log": {
          const lines = progress.text.replace(/\r?\n$/, "").split(/\r?\n/);
          let log = state.log.concat(lines);
          let dropped = state.droppedLines;
          if (log.length > BUILD_LOG_MAX_LINES) {
            dropped += log.length - BUILD_LOG_MAX_LINES;
            log = log.slice(log.length - BUILD_LOG_MAX_LINES);
          }
          return { ...state, running: true, log, droppedLines: dropped };
        }
        case "finished":
          return {
            ...state,
            running: false,
            result: { ok: progress.ok, tag: progress.tag, error: progress.error },
          };
        default:
          return state;
      }
    });
    if (progress.kind === "finished") reloadImage();
  });

  const startBuild = useCallback(
    async (baseFrom?: string) => {
      setBuild({ ...IDLE, running: true });
      const response = await api.request("image.build", baseFrom ? { baseFrom } : {});
      if (!response.ok) {
        setBuild({ ...IDLE, startError: response.error });
        return;
      }
      reloadImage();
    },
    [api, reloadImage],
  );

  // Docker coming back (or going away) changes what can be known about the image.
  const dockerState = docker.data?.state;
  const lastDockerState = useRef(dockerState);
  useEffect(() => {
    const before = lastDockerState.current;
    lastDockerState.current = dockerState;
    if (before !== undefined && dockerState !== undefined && before !== dockerState) reloadImage();
  }, [dockerState, reloadImage]);

  const imageBuilding = image.data?.building ?? false;
  const effectiveBuild = useMemo(
    () => (imageBuilding && !build.running && !build.result ? { ...build, running: true } : build),
    [build, imageBuilding],
  );

  const needsSetup =
    docker.data && image.data
      ? docker.data.state !== "ready" || !image.data.present
      : docker.data && docker.data.state !== "ready"
        ? true
        : null;

  const value = useMemo(
    () => ({ info, docker, image, taint, build: effectiveBuild, startBuild, needsSetup }),
    [info, docker, image, taint, effectiveBuild, startBuild, needsSetup],
  );
  return <AppStateContext.Provider value={value}>{props.children}</AppStateContext.Provider>;
}

export function useAppState(): AppStateValue {
  const value = useContext(AppStateContext);
  if (!value) throw new Error("useAppState() needs an <AppStateProvider> above it");
  return value;
}

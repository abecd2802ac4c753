// @orchestratr/sdk: orcr's TypeScript SDK. See README.md for the surface.

export {
  orcr,
  OrcrClient,
  type AgentApi,
  type ApiApi,
  type AttachOptions,
  type ClientOptions,
  type ContextApi,
  type LsOptions,
  type RunOptions,
  type ScopeOptions,
  type ServerApi,
  type SpawnOptions,
} from "./client.js";
export {
  AgentHandle,
  FOLLOW_INTERVAL_MS,
  type AgentWaitOptions,
  type FollowLogsOptions,
  type KillOptions,
  type KillResult,
  type LogEntry,
  type LogsOptions,
  type RunAgent,
  type SendResult,
  type WaitOptions,
  type WaitResult,
} from "./handle.js";
export { AttachHandle } from "./attach.js";
export { Watch, type AgentRow, type CursorExpiredEvent, type Snapshot, type WatchEvent, type WatchOptions } from "./watch.js";
export {
  type CreatedLoop,
  type LoopApi,
  type LoopCreateOptions,
  type LoopLogLine,
  type LoopLogsOptions,
  type LoopLsOptions,
  type LoopRmOptions,
  type LoopRow,
  type LoopRunApi,
  type LoopRunLsOptions,
  type LoopRunStopOptions,
  type RunRow,
  type StartedRun,
} from "./loops.js";
export { fromEnv, loopNameFrom, type LoopMembership, type OrcrContext } from "./context.js";
export {
  DEFAULT_TIMEOUT_MS,
  FrameSplitter,
  MAX_FRAME_BYTES,
  ORCR_PROTOCOL,
  orcrHome,
  socketPath,
  Subscription,
  Transport,
  UNBOUNDED_METHODS,
  type Env,
  type MethodTransport,
  type RequestOptions,
  type StreamEvent,
  type StreamFrame,
  type TransportOptions,
} from "./wire.js";
export {
  Blocked,
  EnvironmentError,
  errorFromWire,
  IntegrationMissing,
  InvalidRequest,
  NotFound,
  OrcrError,
  ServerError,
  StateConflict,
  Timeout,
  TranscriptUnavailable,
  type ErrorDetails,
  type WireError,
} from "./errors.js";
export {
  expandRand,
  isPattern,
  MAX_DEPTH,
  MAX_PATH_LEN,
  MAX_SEGMENT_LEN,
  nameOf,
  Pattern,
  RESERVED_NAMES,
  resolveCreate,
  resolveSelector,
  scopeOfAgent,
  validatePath,
  validSegment,
  type CreateTarget,
} from "./path.js";
export { composeScope } from "./scope.js";
export * from "./generated.js";

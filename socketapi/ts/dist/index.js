// @orchestratr/sdk: orcr's TypeScript SDK. See README.md for the surface.
export { orcr, OrcrClient, } from "./client.js";
export { AgentHandle, FOLLOW_INTERVAL_MS, } from "./handle.js";
export { AttachHandle } from "./attach.js";
export { Watch } from "./watch.js";
export { fromEnv, loopNameFrom } from "./context.js";
export { DEFAULT_TIMEOUT_MS, FrameSplitter, MAX_FRAME_BYTES, ORCR_PROTOCOL, orcrHome, socketPath, Subscription, Transport, UNBOUNDED_METHODS, } from "./wire.js";
export { Blocked, EnvironmentError, errorFromWire, IntegrationMissing, InvalidRequest, NotFound, OrcrError, ServerError, StateConflict, Timeout, TranscriptUnavailable, } from "./errors.js";
export { expandRand, isPattern, MAX_DEPTH, MAX_PATH_LEN, MAX_SEGMENT_LEN, nameOf, Pattern, RESERVED_NAMES, resolveCreate, resolveSelector, scopeOfAgent, validatePath, validSegment, } from "./path.js";
export { composeScope } from "./scope.js";
export * from "./generated.js";

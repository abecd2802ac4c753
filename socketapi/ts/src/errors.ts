// The typed errors of the SDK: one class per wire error code of protocol 1
// (docs/protocol.md §9), all deriving from OrcrError.

/** The details object of an error: `reason` or `cause` and the fields that go with it. */
export type ErrorDetails = Record<string, unknown>;

/** The error object of a failed response envelope. */
export interface WireError {
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

/**
 * OrcrError is the base of every error the SDK throws for a refused request or a failed
 * transport: `code` is the wire code, `details` the error's details (null when there are
 * none), `name` the subclass name.
 */
export class OrcrError extends Error {
  readonly code: string;
  readonly details: ErrorDetails | null;

  constructor(code: string, message: string, details: ErrorDetails | null = null) {
    super(message);
    this.code = code;
    this.details = details;
    this.name = new.target.name;
  }

  /** `details.reason`, when it is a string. */
  get reason(): string | undefined {
    const r = this.details?.reason;
    return typeof r === "string" ? r : undefined;
  }

  /** `details.cause`, when it is a string. */
  get causeCode(): string | undefined {
    const c = this.details?.cause;
    return typeof c === "string" ? c : undefined;
  }
}

/** `not_found` (CLI exit 6): a target, loop or run resolved to nothing. */
export class NotFound extends OrcrError {}
/** `invalid_request` (exit 1): bad params, names, paths, durations, cron or envelope. */
export class InvalidRequest extends OrcrError {}
/** `state_conflict` (exit 7): the wrong state for the operation, or a uniqueness collision. */
export class StateConflict extends OrcrError {
  /** True when the refusal is `force_required` (an unmanaged agent killed without force). */
  get forceRequired(): boolean {
    return this.details?.reason === "force_required";
  }
}
/** `blocked` (exit 4): the agent of an ask needs a human. */
export class Blocked extends OrcrError {}
/** `timeout` (exit 3): an ask's deadline passed. A wait that runs out is not an error. */
export class Timeout extends OrcrError {}
/** `integration_missing` (exit 2): the provider lacks orcr's or herdr's integration. */
export class IntegrationMissing extends OrcrError {}
/** `transcript_unavailable` (exit 1): no final response or transcript could be read. */
export class TranscriptUnavailable extends OrcrError {}
/**
 * `environment_error` (exit 2): home, config, store, herdr, server start, version, and
 * every transport failure of this SDK (`details.cause`: `server_unreachable`,
 * `server_start_failed`, `client_timeout`, `frame_too_large`, `unsupported_version`,
 * `bad_frame`, `unsafe_home`, `no_home_dir`).
 */
export class EnvironmentError extends OrcrError {}
/** `server_error` (exit 1): an internal failure; also every code this SDK does not know. */
export class ServerError extends OrcrError {}

type ErrorClass = new (code: string, message: string, details?: ErrorDetails | null) => OrcrError;

const classes: Record<string, ErrorClass> = {
  not_found: NotFound,
  invalid_request: InvalidRequest,
  state_conflict: StateConflict,
  blocked: Blocked,
  timeout: Timeout,
  integration_missing: IntegrationMissing,
  transcript_unavailable: TranscriptUnavailable,
  environment_error: EnvironmentError,
  server_error: ServerError,
};

/**
 * errorFromWire turns the error object of a response envelope into its class, as
 * docs/protocol.md §2.3 says a client reads it: an unknown or missing code is a
 * ServerError with code `server_error`, a missing message is "server error", details that
 * are not an object are null.
 */
export function errorFromWire(e: WireError | null | undefined): OrcrError {
  const known = typeof e?.code === "string" && Object.hasOwn(classes, e.code);
  const code = known ? (e!.code as string) : "server_error";
  const message = typeof e?.message === "string" && e.message !== "" ? e.message : "server error";
  const raw = e?.details;
  const details = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as ErrorDetails) : null;
  return new classes[code](code, message, details);
}

/** An EnvironmentError whose details carry `cause` and the extra fields. */
export function environmentError(cause: string, message: string, extra: ErrorDetails = {}): EnvironmentError {
  return new EnvironmentError("environment_error", message, { cause, ...extra });
}

/** An InvalidRequest whose details carry `reason` and the extra fields. */
export function invalidRequest(reason: string, message: string, extra: ErrorDetails = {}): InvalidRequest {
  return new InvalidRequest("invalid_request", message, { reason, ...extra });
}

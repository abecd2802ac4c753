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
export declare class OrcrError extends Error {
    readonly code: string;
    readonly details: ErrorDetails | null;
    constructor(code: string, message: string, details?: ErrorDetails | null);
    /** `details.reason`, when it is a string. */
    get reason(): string | undefined;
    /** `details.cause`, when it is a string. */
    get causeCode(): string | undefined;
}
/** `not_found` (CLI exit 6): a target, loop or run resolved to nothing. */
export declare class NotFound extends OrcrError {
}
/** `invalid_request` (exit 1): bad params, names, paths, durations, cron or envelope. */
export declare class InvalidRequest extends OrcrError {
}
/** `state_conflict` (exit 7): the wrong state for the operation, or a uniqueness collision. */
export declare class StateConflict extends OrcrError {
    /** True when the refusal is `force_required` (an unmanaged agent killed without force). */
    get forceRequired(): boolean;
}
/** `blocked` (exit 4): the agent of an ask needs a human. */
export declare class Blocked extends OrcrError {
}
/** `timeout` (exit 3): an ask's deadline passed. A wait that runs out is not an error. */
export declare class Timeout extends OrcrError {
}
/** `integration_missing` (exit 2): the provider lacks orcr's or herdr's integration. */
export declare class IntegrationMissing extends OrcrError {
}
/** `transcript_unavailable` (exit 1): no final response or transcript could be read. */
export declare class TranscriptUnavailable extends OrcrError {
}
/**
 * `environment_error` (exit 2): home, config, store, herdr, server start, version, and
 * every transport failure of this SDK (`details.cause`: `server_unreachable`,
 * `server_start_failed`, `client_timeout`, `frame_too_large`, `unsupported_version`,
 * `bad_frame`, `unsafe_home`, `no_home_dir`).
 */
export declare class EnvironmentError extends OrcrError {
}
/** `server_error` (exit 1): an internal failure; also every code this SDK does not know. */
export declare class ServerError extends OrcrError {
}
/**
 * errorFromWire turns the error object of a response envelope into its class, as
 * docs/protocol.md §2.3 says a client reads it: an unknown or missing code is a
 * ServerError with code `server_error`, a missing message is "server error", details that
 * are not an object are null.
 */
export declare function errorFromWire(e: WireError | null | undefined): OrcrError;
/** An EnvironmentError whose details carry `cause` and the extra fields. */
export declare function environmentError(cause: string, message: string, extra?: ErrorDetails): EnvironmentError;
/** An InvalidRequest whose details carry `reason` and the extra fields. */
export declare function invalidRequest(reason: string, message: string, extra?: ErrorDetails): InvalidRequest;

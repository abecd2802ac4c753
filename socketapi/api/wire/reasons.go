package wire

// The reason table: every value an error puts in details.reason (invalid_request,
// state_conflict) or details.cause (transcript_unavailable, environment_error,
// server_error), each with its code and what it means. docs/protocol.md §9.3's tables are
// generated from [Reasons] (`go test ./socketapi/api -run TestReasonsDoc -update`), and a
// test refuses a reason or cause written anywhere as a string literal, so none reaches the
// wire undocumented. The values are stable: a client matches on them.

// Values of details.reason for invalid_request.
const (
	ReasonBadJSON             = "bad_json"
	ReasonMissingMethod       = "missing_method"
	ReasonTruncatedFrame      = "truncated_frame"
	ReasonFrameTooLarge       = "frame_too_large"
	ReasonUnknownMethod       = "unknown_method"
	ReasonNotImplemented      = "not_implemented"
	ReasonWrongType           = "wrong_type"
	ReasonCLIParse            = "cli_parse"
	ReasonConflictingFlags    = "conflicting_flags"
	ReasonNameRequired        = "name_required"
	ReasonNameAndPath         = "name_and_path"
	ReasonInvalidName         = "invalid_name"
	ReasonEmptyPath           = "empty_path"
	ReasonPathTooLong         = "path_too_long"
	ReasonPathTooDeep         = "path_too_deep"
	ReasonInvalidSegment      = "invalid_segment"
	ReasonReservedName        = "reserved_name"
	ReasonEmptySelector       = "empty_selector"
	ReasonInvalidPattern      = "invalid_pattern"
	ReasonEmptyPattern        = "empty_pattern"
	ReasonWildcardNotAllowed  = "wildcard_not_allowed"
	ReasonTargetRequired      = "target_required"
	ReasonPromptRequired      = "prompt_required"
	ReasonStdin               = "stdin"
	ReasonControlCharacters   = "control_characters"
	ReasonPromptTooLarge      = "prompt_too_large"
	ReasonInvalidGC           = "invalid_gc"
	ReasonInvalidModel        = "invalid_model"
	ReasonInvalidEffort       = "invalid_effort"
	ReasonBadDuration         = "bad_duration"
	ReasonNotAGitRepository   = "not_a_git_repository"
	ReasonKeepWithoutWorktree = "keep_without_worktree"
	ReasonInvalidBranch       = "invalid_branch"
	ReasonNoCommits           = "no_commits"
	ReasonInvalidCron         = "invalid_cron"
	ReasonInvalidOnceAt       = "invalid_once_at"
	ReasonCadenceRequired     = "cadence_required"
	ReasonCadenceConflict     = "cadence_conflict"
	ReasonCommandRequired     = "command_required"
	ReasonInvalidMaxConc      = "invalid_max_concurrency"
	ReasonInvalidOverlap      = "invalid_overlap"
	ReasonTimeoutTooSmall     = "timeout_too_small"
	ReasonLeaseRequired       = "lease_required"
	ReasonPathRequired        = "path_required"
	ReasonNotUnmanaged        = "not_unmanaged"
	ReasonNotResumable        = "not_resumable"
	ReasonInvalidSDKSpec      = "invalid_sdk_spec"
	ReasonInvalidGrouping     = "invalid_grouping"
	ReasonBadSince            = "bad_since"
	ReasonInvalidBudget       = "invalid_budget"
	ReasonJSONNotSupported    = "json_not_supported"
	ReasonNotLoopback         = "not_loopback"
	ReasonBadAddress          = "bad_address"
	ReasonInvalidQuota        = "invalid_quota"
	ReasonFleetNotAllowed     = "fleet_not_allowed"
	ReasonFleetCallIncomplete = "fleet_call_incomplete"
	ReasonFleetRelativeCwd    = "fleet_relative_cwd"
	ReasonBadFleetRead        = "bad_fleet_read"
	ReasonBadFleetToken       = "bad_fleet_token"
)

// Values of details.reason for state_conflict.
const (
	ReasonPathInUse        = "path_in_use"
	ReasonKillInProgress   = "kill_in_progress"
	ReasonRunStopping      = "run_stopping"
	ReasonWorktreeInUse    = "worktree_in_use"
	ReasonBranchCheckedOut = "branch_checked_out"
	ReasonLoopNameInUse    = "loop_name_in_use"
	ReasonNoScreen         = "no_screen"
	ReasonNoAgentSession   = "no_agent_session"
	ReasonPaneGone         = "pane_gone"
	ReasonFileExists       = "file_exists"
)

// Values of details.cause for transcript_unavailable.
const (
	CauseNoSession       = "no_session"
	CauseNotFound        = "not_found"
	CauseNoFinalResponse = "no_final_response"
	CauseStale           = "stale"
	CauseAmbiguous       = "ambiguous"
	CauseReadError       = "read_error"
	CauseNoTranscript    = "no_transcript"
)

// Values of details.cause for environment_error.
const (
	CauseUnsupportedVersion      = "unsupported_version"
	CauseHerdrVersionSkew        = "herdr_version_skew"
	CauseServerUnreachable       = "server_unreachable"
	CauseServerStartFailed       = "server_start_failed"
	CauseServerStopping          = "server_stopping"
	CauseSocketPathTooLong       = "socket_path_too_long"
	CauseStoreLocked             = "store_locked"
	CauseStoreOpenFailed         = "store_open_failed"
	CauseStoreVersionMismatch    = "store_version_mismatch"
	CauseConfigInvalid           = "config_invalid"
	CauseUnsafeHome              = "unsafe_home"
	CauseNoHomeDir               = "no_home_dir"
	CauseHomeCreateFailed        = "home_create_failed"
	CauseHerdrMissing            = "herdr_missing"
	CauseHerdrUnreachable        = "herdr_unreachable"
	CauseHerdrError              = "herdr_error"
	CauseModelCatalogUnavailable = "model_catalog_unavailable"
	CauseGitMissing              = "git_missing"
	CauseGitError                = "git_error"
	CauseProviderLoginRequired   = "provider_login_required"
	CauseProviderTrustRequired   = "provider_trust_required"
	CauseProviderSetupRequired   = "provider_setup_required"
	CauseProviderRefusesRoot     = "provider_refuses_root"
	CauseRemoteOff               = "remote_off"
	CauseInterrupted             = "interrupted"
	CauseClientTimeout           = "client_timeout"
	CauseFrameTooLarge           = "frame_too_large"
	CauseCwdUnavailable          = "cwd_unavailable"
	CauseNotATerminal            = "not_a_terminal"
	CauseUnsupportedPlatform     = "unsupported_platform"
	CauseNodeMissing             = "node_missing"
	CauseNodeTooOld              = "node_too_old"
	CauseNPMMissing              = "npm_missing"
	CauseGoMissing               = "go_missing"
	CauseNPMInstallFailed        = "npm_install_failed"
	CauseGoModTidyFailed         = "go_mod_tidy_failed"
	CauseScaffoldFailed          = "scaffold_failed"
	CauseSkillInstallFailed      = "skill_install_failed"
	CauseListenFailed            = "listen_failed"
	CauseFleetUnreachable        = "fleet_unreachable"
)

// Values of details.cause for server_error.
const (
	CauseCursorExpired = "cursor_expired"
	CauseSQLite        = "sqlite"
	CauseSocketIO      = "socket_io"
	CauseEncode        = "encode"
	CauseDecode        = "decode"
	CauseGap           = "gap"
	CauseActor         = "actor"
	CauseStore         = "store"
	CauseHerdr         = "herdr"
	CauseStopping      = "stopping"
	CauseCanceled      = "canceled"
	CauseInternal      = "internal"
	CauseUUID          = "uuid"
	CauseRandom        = "random"
	CauseExecutable    = "executable"
	CauseDataDir       = "data_dir"
	CauseLaunchMissing = "launch_missing"
	CauseLaunchDecode  = "launch_decode"
	CauseRelaunch      = "relaunch"
	CauseMockBinUnset  = "mock_bin_unset"
	CauseAttachCommand = "attach_command"
	CauseCLI           = "cli"
	CauseMCP           = "mcp"
)

// ReasonInfo is one row of the reason table.
type ReasonInfo struct {
	// Name is the value of details.reason or details.cause.
	Name string
	// Code is the error code it goes with.
	Code Code
	// Meaning says when it is given and the details beside it: one line of Markdown,
	// docs/protocol.md §9.3's text (section numbers are protocol.md's).
	Meaning string
}

// Key is the details key the value goes under: "reason" for invalid_request and
// state_conflict, "cause" for every other code.
func (r ReasonInfo) Key() string {
	if r.Code == InvalidRequest || r.Code == StateConflict {
		return "reason"
	}
	return "cause"
}

// Reasons is the reason table, by code in the error table's order, then in the order
// docs/protocol.md §9.3 lists them. Adjacent rows of one code with the same meaning are
// one row of the doc's table.
var Reasons = []ReasonInfo{
	{ReasonBadJSON, InvalidRequest, "envelope and framing (§2.5)"},
	{ReasonMissingMethod, InvalidRequest, "envelope and framing (§2.5)"},
	{ReasonTruncatedFrame, InvalidRequest, "envelope and framing (§2.5)"},
	{ReasonFrameTooLarge, InvalidRequest, "a request frame over 16 MiB: `{reason, limit_bytes}` from the server (§2.5), `{reason, limit_bytes, frame_bytes}` from the client, which refuses before sending (§1.9); over the fleet, a request over the NATS server's max_payload: `{reason, limit_bytes, frame_bytes, host}` ([fleet.md §4.8](fleet.md#48-answers-larger-than-max_payload))"},
	{ReasonUnknownMethod, InvalidRequest, "dispatch; `{reason, method}`"},
	{ReasonNotImplemented, InvalidRequest, "a registered method not landed yet (§5.28); `{reason, method}`. The CLI uses it for its own unimplemented verbs with `{reason, verb}`"},
	{ReasonWrongType, InvalidRequest, "`{reason, field, expected, got}` — a param of the wrong JSON type, or `params` that is not an object (§2.2)"},
	{ReasonCLIParse, InvalidRequest, "CLI argument parsing (CLI only)"},
	{ReasonConflictingFlags, InvalidRequest, "`--managed` with `--unmanaged` (CLI only); `agent.logs` with both `screen` and `last_response`"},
	{ReasonNameRequired, InvalidRequest, "missing name and path (CLI: also both given); a loop verb without a loop name"},
	{ReasonNameAndPath, InvalidRequest, "both `name` and `path` (server)"},
	{ReasonInvalidName, InvalidRequest, "a `name` containing `/`; a loop name that is not one segment"},
	{ReasonEmptyPath, InvalidRequest, "empty effective path"},
	{ReasonPathTooLong, InvalidRequest, "`{reason, path, len}` — more than 256 characters"},
	{ReasonPathTooDeep, InvalidRequest, "`{reason, path, segments}` — more than 8 segments"},
	{ReasonInvalidSegment, InvalidRequest, "a segment outside `[a-z0-9_]{1,64}` (paths and selectors)"},
	{ReasonReservedName, InvalidRequest, "`{reason, name}` — `idle` / `unmanaged` as first segment, or an active loop's namespace"},
	{ReasonEmptySelector, InvalidRequest, "selector grammar"},
	{ReasonInvalidPattern, InvalidRequest, "selector grammar"},
	{ReasonEmptyPattern, InvalidRequest, "selector grammar"},
	{ReasonWildcardNotAllowed, InvalidRequest, "a pattern given to an exact-target method"},
	{ReasonTargetRequired, InvalidRequest, "send / logs / wait / kill / attach without target(s)"},
	{ReasonPromptRequired, InvalidRequest, "CLI `agent send` without a prompt (CLI only)"},
	{ReasonStdin, InvalidRequest, "reading the prompt from stdin failed (CLI only)"},
	{ReasonControlCharacters, InvalidRequest, "`{reason, offset, code}` — a prompt (run, ask, send) holding a control character other than newline and tab; `offset` is the byte offset of the first, `code` its code point ([decisions.md](decisions.md) D9)"},
	{ReasonPromptTooLarge, InvalidRequest, "`{reason, limit_bytes, prompt_bytes}` — a prompt over 8 MiB (8,388,608 bytes)"},
	{ReasonInvalidGC, InvalidRequest, "`{reason, value}` — bad `gc`"},
	{ReasonInvalidModel, InvalidRequest, "`{reason, provider, model, valid_models}`"},
	{ReasonInvalidEffort, InvalidRequest, "`{reason, provider, model, effort, valid_efforts}`"},
	{ReasonBadDuration, InvalidRequest, "`{reason, value}` — empty, no unit, unknown unit, not a positive integer, zero, compound, too large"},
	{ReasonNotAGitRepository, InvalidRequest, "`{reason, cwd}` — `agent.run` or `agent.ask` with `worktree` and no `cwd`, a relative one, or one outside a git repository"},
	{ReasonKeepWithoutWorktree, InvalidRequest, "`agent.run` or `agent.ask` with `keep_worktree` but no `worktree`"},
	{ReasonInvalidBranch, InvalidRequest, "`{reason, branch}` — a `worktree_branch` git does not accept as a branch name"},
	{ReasonNoCommits, InvalidRequest, "`{reason, cwd}` — `worktree` (run or ask) in a repository without a commit"},
	{ReasonInvalidCron, InvalidRequest, "`{reason, value}` — `loop.create` with a `cron` that is not five valid fields ([loops.md](loops.md))"},
	{ReasonInvalidOnceAt, InvalidRequest, "`{reason, value}` — `loop.create` with a `once_at` that does not parse or is in the past ([decisions.md](decisions.md) D14)"},
	{ReasonCadenceRequired, InvalidRequest, "`loop.create` with neither `cron` nor `once_at` (the CLI: neither or both)"},
	{ReasonCadenceConflict, InvalidRequest, "`loop.create` with both `cron` and `once_at`"},
	{ReasonCommandRequired, InvalidRequest, "`loop.create` without a command"},
	{ReasonInvalidMaxConc, InvalidRequest, "`{reason, value}` — `loop.create` with `max_concurrency` below 1"},
	{ReasonInvalidOverlap, InvalidRequest, "`{reason, value}` — `loop.create` with an `overlap` other than `queue` or `skip`"},
	{ReasonTimeoutTooSmall, InvalidRequest, "`{reason, value}` — `loop.create` with a run `timeout` under 1 s"},
	{ReasonLeaseRequired, InvalidRequest, "`agent.attach.heartbeat` / `release` without `lease_id`"},
	{ReasonPathRequired, InvalidRequest, "`agent.adopt` without `path`"},
	{ReasonNotUnmanaged, InvalidRequest, "`{reason, target, path}` — `agent.adopt` of a managed agent"},
	{ReasonNotResumable, InvalidRequest, "`{reason, kind, value}` — `agent.adopt` of an agent whose conversation pointer its provider cannot resume"},
	{ReasonInvalidSDKSpec, InvalidRequest, "`{reason, value}` — CLI `orcr scaffold --lang go` with an `ORCR_SDK_SPEC` that is neither a checkout of the module nor a module version"},
	{ReasonInvalidGrouping, InvalidRequest, "`{reason, value, valid}` — `usage.report` with a `by` it does not know"},
	{ReasonInvalidBudget, InvalidRequest, "`{reason, value}` — `agent.run` `budget` or `budget.extend` `by` that is not a cost (`2usd`, `0.5usd`) or a token count (`500k`, `1.5m`, `20000`) above zero ([usage.md §8](usage.md#8-budgets))"},
	{ReasonBadSince, InvalidRequest, "`{reason, value}` — CLI `orcr usage --since` that is no duration, `today`, date or RFC 3339 time"},
	{ReasonJSONNotSupported, InvalidRequest, "CLI `orcr top` and `orcr mcp` with `--json`"},
	{ReasonNotLoopback, InvalidRequest, "`{reason, value}` — CLI `orcr mcp --http` with a host that is not loopback, or an address that is not `host:port`, `:port` or a port ([mcp.md §1](mcp.md#1-running-it))"},
	{ReasonInvalidQuota, InvalidRequest, "`{reason, field, value}` — `quota.record` with a provider orcr does not run, an `account` over 4096 bytes, no windows or more than 8, a window without a name, a `used_percent` outside 0–100 or a negative `resets_at` or `window_minutes` ([usage.md §7.1](usage.md#71-claudes-status-line))"},
	{ReasonBadAddress, InvalidRequest, "`{reason, value}` — CLI `orcr mcp --http` with a host that is not loopback, or an address that is not `host:port`, `:port` or a port ([mcp.md §1](mcp.md#1-running-it))"},
	{ReasonFleetCallIncomplete, InvalidRequest, "`{reason, missing}` — fleet.call without its `host` or its `method` ([fleet.md §4.6](fleet.md#46-the-fleet-through-the-local-server))"},
	{ReasonFleetNotAllowed, InvalidRequest, "`{reason, method, host, caller, policy, allow}` — a call over the fleet to a method outside what the member's policy gives the calling host (`policy` is `fleet.allow`, or `fleet.allow_from.<caller>` when the caller has its own entry; `allow` what it allows) ([fleet.md §4.1](fleet.md#41-fleetallow))"},
	{ReasonFleetRelativeCwd, InvalidRequest, "`{reason, value}` — CLI: `agent run --host` with a relative `--cwd`, which names nothing on another host ([fleet.md §4.2](fleet.md#42-host-qualified-targets-in-the-cli))"},
	{ReasonBadFleetToken, InvalidRequest, "`{reason, field, value}` — `fleet.token` with a `host` that is no host name, or with both `rotate` and `revoke` ([fleet.md §3.1](fleet.md#31-member-tokens))"},
	{ReasonBadFleetRead, InvalidRequest, "`{reason, field, value}` — `fleet.events` with a host that is no host name, a negative cursor, or a `limit` or `wait_ms` out of range ([fleet.md §5.3](fleet.md#53-the-fleets-events))"},

	{ReasonPathInUse, StateConflict, "`{reason, current_status, occupant: {uuid, path, status}}` or `{reason, path}` (when only the unique index noticed) — agent creation at a path an active agent holds; `loop.create` under whose name live agents are"},
	{ReasonKillInProgress, StateConflict, "`{reason, target}` — agent creation under a standing kill barrier"},
	{ReasonRunStopping, StateConflict, "`{reason, current_status}` — creating under a loop run that is not `running`"},
	{ReasonWorktreeInUse, StateConflict, "`{reason, branch, worktree, occupant: {uuid, path}}` — `agent.run` or `agent.ask` with a worktree branch another agent holds"},
	{ReasonBranchCheckedOut, StateConflict, "`{reason, branch, worktree}` — `agent.run` or `agent.ask` with a worktree branch checked out outside orcr's data dir"},
	{ReasonLoopNameInUse, StateConflict, "`{reason, occupant: {uuid, name}}` — `loop.create` with the name of an active or paused loop"},
	{ReasonNoScreen, StateConflict, "`{reason, uuid, current_status}` — `agent.logs` with `screen` for an agent with no pane to read and no kept screen"},
	{ReasonNoAgentSession, StateConflict, "`{reason, current_status}` — `agent.adopt` of an agent whose conversation is not known: herdr reports none, or (pi, gemini) no transcript of it is located"},
	{ReasonPaneGone, StateConflict, "`{reason, uuid, path, current_status}` — a send, park or un-park that finds the agent's pane gone from herdr; the row is marked `lost` ([lifecycle.md §13.2](lifecycle.md#132-periodic-pass))"},
	{ReasonFileExists, StateConflict, "`{reason, file, dir}` — CLI only: `orcr scaffold` and `orcr skill install` would overwrite `file` (relative to `dir`) ([cli.md §5.24](cli.md#524-orcr-scaffold))"},

	{CauseNoSession, TranscriptUnavailable, "no transcript pointer is known"},
	{CauseNoTranscript, TranscriptUnavailable, "the provider is declared with `transcript.format` `none`: it writes no transcript orcr reads, and its answer cannot be told from its screen ([providers.md §11.3](providers.md#113-answers-without-a-transcript))"},
	{CauseNotFound, TranscriptUnavailable, "the file is missing: never created when no turn of the agent has completed — the provider has not written it yet — else rotated or deleted; the message says which"},
	{CauseNoFinalResponse, TranscriptUnavailable, "the transcript holds no final response"},
	{CauseStale, TranscriptUnavailable, "the freshness wait ran out"},
	{CauseAmbiguous, TranscriptUnavailable, "more than one transcript could be the agent's; `candidates: [paths]`"},
	{CauseReadError, TranscriptUnavailable, "the transcript could not be read"},

	{CauseUnsupportedVersion, EnvironmentError, "orcr socket protocol mismatch; `{declared_protocol, server_protocol}`"},
	{CauseHerdrVersionSkew, EnvironmentError, "herdr protocol below 16 (`{reported_protocol, required_protocol, herdr_version}`), a result tag that differs, or the contract check found a difference (`{method, problem, field?, differences}`)"},
	{CauseServerUnreachable, EnvironmentError, "cannot connect to the orcr socket, or the connection broke; after a blocking call's resume (§1.10): no server answered again within 30 s, with `method` and `last_error`"},
	{CauseServerStartFailed, EnvironmentError, "auto-start or lock wait timed out (`last_error`); an auto-started server that died without reporting an error; a bind that failed; also the owned herdr session not starting within 10 s; and, CLI only, a start-at-login unit that cannot be written or removed (`path`) or a value it cannot carry (`value_of`, `value`)"},
	{CauseServerStopping, EnvironmentError, "Go client only: a watch stream ended by the server's `server_stopping` control frame"},
	{CauseSocketPathTooLong, EnvironmentError, "`<home>/orcr.sock` is longer than a Unix socket path may be (§1.3); `{path, len, limit}`"},
	{CauseStoreLocked, EnvironmentError, "the instance lock could not be taken for another reason than a live owner"},
	{CauseStoreOpenFailed, EnvironmentError, "store problems ([config.md §3.1](config.md#31-general))"},
	{CauseStoreVersionMismatch, EnvironmentError, "store problems ([config.md §3.1](config.md#31-general))"},
	{CauseConfigInvalid, EnvironmentError, "bad `config.json`, a missing model/effort default, a `remote.listen` that cannot be bound or TLS files that cannot be loaded; also the CLI's file errors for `server logs` and `api schema --output`"},
	{CauseUnsafeHome, EnvironmentError, "home problems (§1.1–§1.3)"},
	{CauseNoHomeDir, EnvironmentError, "home problems (§1.1–§1.3)"},
	{CauseHomeCreateFailed, EnvironmentError, "home problems (§1.1–§1.3)"},
	{CauseHerdrMissing, EnvironmentError, "no usable herdr binary"},
	{CauseHerdrUnreachable, EnvironmentError, "the herdr session socket does not answer"},
	{CauseHerdrError, EnvironmentError, "herdr answered with an error or a malformed response; `herdr_code` names herdr's code"},
	{CauseModelCatalogUnavailable, EnvironmentError, "the codex model catalogue could not be read"},
	{CauseGitMissing, EnvironmentError, "`agent.run` or `agent.ask` with `worktree`: no `git` on the server's `PATH`"},
	{CauseGitError, EnvironmentError, "`agent.run` or `agent.ask` with `worktree`: git failed (`dir`)"},
	{CauseProviderLoginRequired, EnvironmentError, "a delivery found the provider's TUI at its login screen and typed nothing (`provider`; [providers.md §5.2](providers.md#52-login-screens))"},
	{CauseProviderTrustRequired, EnvironmentError, "a delivery found the provider's TUI asking whether to trust the agent's working directory and typed nothing (`provider`, `cwd`; [providers.md §5.2](providers.md#52-login-screens))"},
	{CauseProviderSetupRequired, EnvironmentError, "a delivery found the provider's TUI asking a question about its own settings and typed nothing (`provider`; [providers.md §5.2](providers.md#52-login-screens))"},
	{CauseProviderRefusesRoot, EnvironmentError, "`agent run` of claude with its permission bypass by a server running as root whose environment has no `IS_SANDBOX`; nothing is created (`provider`, `flag`, `env`; [providers.md §3.2](providers.md#32-launch-argv))"},
	{CauseRemoteOff, EnvironmentError, "`dashboard.login` on a server without `remote.listen` ([dashboard.md §1](dashboard.md#1-turning-it-on))"},
	{CauseInterrupted, EnvironmentError, "the request ended before the work it waits on did (`loop.rm` and `loop.run.stop` waiting for runs to stop: the stops go on); CLI: a client verb interrupted by SIGINT / SIGTERM (`signal`)"},
	{CauseClientTimeout, EnvironmentError, "client-side only (§1.9): no reply within the client's deadline"},
	{CauseFrameTooLarge, EnvironmentError, "client-side only (§1.9): a *reply* over the frame limit (an oversized request is `invalid_request`)"},
	{CauseCwdUnavailable, EnvironmentError, "CLI only: the working directory cannot be read"},
	{CauseNotATerminal, EnvironmentError, "CLI only: `orcr top` without a terminal on stdin and stdout"},
	{CauseUnsupportedPlatform, EnvironmentError, "CLI only: `server enable` / `disable` on a platform other than Linux and macOS (`platform`)"},
	{CauseNodeMissing, EnvironmentError, "CLI only: `orcr scaffold`'s preflight found no Node.js, with an install pointer in `hint` ([cli.md §5.24](cli.md#524-orcr-scaffold))"},
	{CauseNodeTooOld, EnvironmentError, "CLI only: `orcr scaffold`'s preflight found a Node.js too old (`found_major`, `required_major`), with an install pointer in `hint`"},
	{CauseNPMMissing, EnvironmentError, "CLI only: `orcr scaffold`'s preflight found no npm, with an install pointer in `hint`"},
	{CauseGoMissing, EnvironmentError, "CLI only: `orcr scaffold --lang go`'s preflight found no Go, with an install pointer in `hint`"},
	{CauseNPMInstallFailed, EnvironmentError, "CLI only: `orcr scaffold`'s install step failed (`dir`, `command`, `exit_code`)"},
	{CauseGoModTidyFailed, EnvironmentError, "CLI only: `orcr scaffold`'s install step failed (`dir`, `command`, `exit_code`)"},
	{CauseScaffoldFailed, EnvironmentError, "CLI only: `orcr scaffold` / `orcr skill install` could not write (`dir`)"},
	{CauseSkillInstallFailed, EnvironmentError, "CLI only: `orcr scaffold` / `orcr skill install` could not write (`dir`)"},
	{CauseListenFailed, EnvironmentError, "CLI only: `orcr mcp --http` could not bind its address (`address`)"},
	{CauseFleetUnreachable, EnvironmentError, "`{cause, host}` — a call over the fleet to a member that did not answer in time, or with `orcr agent ls --fleet` no fleet at all ([fleet.md §4](fleet.md#4-the-api-over-the-fleet))"},

	{CauseCursorExpired, ServerError, "a watch cursor older than the oldest replayable event (`oldest_seq`)"},
	{CauseSQLite, ServerError, "the store's database failed"},
	{CauseSocketIO, ServerError, "reading the socket failed"},
	{CauseEncode, ServerError, "a result, event or request could not be encoded"},
	{CauseDecode, ServerError, "Go client only: a reply or event could not be decoded"},
	{CauseGap, ServerError, "Go client only: a watch stream skipped a seq"},
	{CauseActor, ServerError, "an actor did not start or did not answer"},
	{CauseStore, ServerError, "the store actor did not answer"},
	{CauseHerdr, ServerError, "a herdr failure that is no protocol error"},
	{CauseStopping, ServerError, "the server is stopping: an agent's operation that had not started"},
	{CauseCanceled, ServerError, "the server stopped while the request waited"},
	{CauseInternal, ServerError, "any other failure that is no protocol error"},
	{CauseUUID, ServerError, "a uuid could not be made"},
	{CauseRandom, ServerError, "a token could not be made"},
	{CauseExecutable, ServerError, "the server cannot find its own executable (for loop runs and agent panes)"},
	{CauseDataDir, ServerError, "an agent's data dir or its `launch.json` could not be written"},
	{CauseLaunchMissing, ServerError, "an agent's `launch.json` could not be read"},
	{CauseLaunchDecode, ServerError, "an agent's `launch.json` could not be decoded"},
	{CauseRelaunch, ServerError, "a limit's relaunch of an agent whose provider has none"},
	{CauseMockBinUnset, ServerError, "the mock provider without `ORCR_MOCK_AGENT_BIN`"},
	{CauseAttachCommand, ServerError, "CLI only: the server returned an empty attach command"},
	{CauseCLI, ServerError, "CLI only: a failure of the CLI that is no protocol error"},
	{CauseMCP, ServerError, "a failure of `orcr mcp` that is no protocol error ([mcp.md §4](mcp.md#4-results-and-errors))"},
}

package api

import "encoding/json"

// The params and results of every method of protocol 1 (docs/protocol.md §5). Their json
// names are the wire names; their doc comments become the descriptions of the schema
// document. A string param that is "" counts as absent, as on the wire.

// NoParams is the params of a method that takes none.
type NoParams struct{}

// Open is a value whose shape the protocol leaves open (an object the server may grow).
type Open = json.RawMessage

// Caller is the caller identity every agent verb takes (docs/protocol.md §4.1): the agent
// or loop run the request comes from, as its ORCR_ID and ORCR_PATH give it.
type Caller struct {
	// The caller's ORCR_ID: an agent uuid or a loop-run uuid.
	CallerID string `json:"caller_id,omitempty"`
	// The caller's ORCR_PATH (absolute, no leading slash).
	CallerPath string `json:"caller_path,omitempty"`
}

// Handshake is the result of server.handshake, the readiness probe.
type Handshake struct {
	// The server's process id.
	PID int `json:"pid"`
	// The socket protocol the server speaks.
	Protocol int `json:"protocol"`
	// The path of the server's SQLite store.
	Store string `json:"store"`
	// Always true once the server answers.
	Ready bool `json:"ready"`
}

// StopResult is the result of server.stop.
type StopResult struct {
	// "stopping": the response is written, then the server stops.
	Status string `json:"status"`
}

// StatusResult is server.status's result (docs/protocol.md §5.2).
type StatusResult struct {
	// The server's package version.
	Version string `json:"version"`
	// The socket protocol.
	Protocol int64 `json:"protocol"`
	// The server's process id.
	PID int `json:"pid"`
	// Milliseconds since the server started.
	UptimeMS int64 `json:"uptime_ms"`
	// The socket path.
	Socket string `json:"socket"`
	// The store path.
	Store string `json:"store"`
	// herdr as the server sees it.
	Herdr HerdrStatus `json:"herdr"`
	// Per provider: whether orcr and herdr each have an integration.
	Integrations map[string]Integration `json:"integrations"`
	// Agent and pane counts (live, queued, blocked, stalled, unmanaged, unmarked_panes,
	// unknown_marked_panes).
	Counts map[string]int64 `json:"counts"`
	// The agents whose open turn is marked stalled, longest stalled first.
	Stalled []StalledAgent `json:"stalled"`
	// The providers the admission queue holds back at a usage limit, by provider.
	Paused []ProviderPause `json:"paused"`
	// Whether the service manager will start the server at login, so loops fire after a
	// reboot (the unit is installed and, on Linux, enabled on a machine systemd runs).
	LoopsFiring bool `json:"loops_firing"`
	// Active and paused loops.
	Loops []LoopSummary `json:"loops"`
	// Reconciliation counters (lost, repaired, unknown_marked_panes, unmarked_panes,
	// root_shell_panes).
	Drift map[string]int64 `json:"drift"`
	// The remote stream's listener (docs/remote.md §2).
	Remote RemoteStatus `json:"remote"`
	// This member of a fleet (docs/fleet.md §5.1); null when the fleet is off.
	Fleet *FleetStatus `json:"fleet"`
	// Every configured notify target, by name (docs/notify.md §6); empty without
	// notify targets.
	Notify []NotifyTargetStatus `json:"notify"`
	// config.json as the server started with it, and whether the file on disk now
	// differs (docs/config.md §1.9).
	Config ConfigStatus `json:"config"`
	// What the turns completed since the server's local midnight used (docs/usage.md).
	Today UsageSum `json:"today"`
	// The last report of every quota window, by provider, account and window
	// (docs/usage.md §7).
	Quota []QuotaWindow `json:"quota"`
	// When ended agents are forgotten, and how many were (docs/lifecycle.md §12.4).
	Retention RetentionStatus `json:"retention"`
	// The concurrency slots, held and free (docs/lifecycle.md §7): what `agent run
	// --host any` places a run by (docs/fleet.md §4.3).
	Slots SlotsStatus `json:"slots"`
}

// SlotsStatus is server.status's slots object: the concurrency caps and the managed
// agents holding a slot under them.
type SlotsStatus struct {
	// concurrency.max.
	Max int64 `json:"max"`
	// The managed agents holding a slot.
	Used int64 `json:"used"`
	// max - used, at least 0.
	Free int64 `json:"free"`
	// The provider of a request without agent (defaults.agent).
	DefaultAgent string `json:"default_agent"`
	// Every provider with a cap of its own or holding a slot, by name.
	Providers map[string]ProviderSlots `json:"providers"`
}

// ProviderSlots is one provider's slots: a run of it is admitted while free > 0.
type ProviderSlots struct {
	// concurrency.<provider>; null: only concurrency.max caps it.
	Cap *int64 `json:"cap"`
	// Its agents holding a slot.
	Used int64 `json:"used"`
	// The smaller of its cap's free slots and the global free slots, at least 0.
	Free int64 `json:"free"`
}

// FreeFor is the free slots for a run of provider ("" : the default agent).
func (s SlotsStatus) FreeFor(provider string) int64 {
	if provider == "" {
		provider = s.DefaultAgent
	}
	if p, ok := s.Providers[provider]; ok {
		return p.Free
	}
	return s.Free
}

// RetentionStatus is server.status's retention object: the limits the server started
// with and what the gc has forgotten under them (docs/lifecycle.md §12.4).
type RetentionStatus struct {
	// How long an ended agent is kept after it ended (retention.ended_for), in ms; null
	// when that limit is off.
	EndedForMS *int64 `json:"ended_for_ms"`
	// How many ended agents are kept, the newest (retention.ended_max); null when that
	// limit is off.
	EndedMax *int64 `json:"ended_max"`
	// Ended agents forgotten so far, across restarts.
	TrimmedTotal int64 `json:"trimmed_total"`
	// When the last ones were forgotten (ms); null when none ever was.
	LastTrimAt *int64 `json:"last_trim_at"`
}

// ConfigStatus is server.status's config object: the server reads config.json once, at
// start, so a change on disk applies at the next start (`orcr server restart`).
type ConfigStatus struct {
	// The config file's path.
	Path string `json:"path"`
	// The hex SHA-256 of the file the server started with; null when there was none.
	Digest *string `json:"digest"`
	// Whether the file on disk now differs from the one the server started with: a
	// restart applies the change.
	Changed bool `json:"changed"`
	// The keys that differ, as dotted paths to the second level (remote.listen; a whole
	// section when it was added or removed), sorted; empty when unchanged or when either
	// file is not a JSON object.
	ChangedKeys []string `json:"changed_keys"`
	// Why the file on disk now would refuse a start (a restart would fail); null when it
	// loads.
	Error *string `json:"error"`
}

// NotifyTargetStatus is one notify target in server.status: its durable delivery queue
// and counters (docs/notify.md §6).
type NotifyTargetStatus struct {
	// The target's name in notify.targets.
	Name string `json:"name"`
	// herdr, webhook or command.
	Type string `json:"type"`
	// Deliveries waiting for an attempt (a first one or a retry).
	Pending int64 `json:"pending"`
	// Deliveries the target took.
	Delivered int64 `json:"delivered"`
	// Deliveries given up: attempts exhausted or a permanent error.
	Failed int64 `json:"failed"`
	// Deliveries refused at notify.queue_limit.
	Dropped int64 `json:"dropped"`
	// The last attempt's error, when one failed.
	LastError *string `json:"last_error"`
	// When that error happened (ms).
	LastErrorAt *int64 `json:"last_error_at"`
	// When the last delivery succeeded (ms).
	LastDeliveredAt *int64 `json:"last_delivered_at"`
	// When the earliest pending attempt is due (ms); null when nothing is pending.
	NextAttemptAt *int64 `json:"next_attempt_at"`
}

// RemoteStatus is server.status's remote object.
type RemoteStatus struct {
	// Whether the listener is up (remote.listen is set and bound).
	Listening bool `json:"listening"`
	// The bound host:port, when listening.
	Address *string `json:"address"`
	// Whether the listener speaks TLS.
	TLS bool `json:"tls"`
	// Open stream connections.
	Connections int `json:"connections"`
	// Replay reads holding a slot now, connections waiting for one, and the most
	// ever held at once (at most remote.max_concurrent_replays).
	ReplaysActive  int `json:"replays_active"`
	ReplaysWaiting int `json:"replays_waiting"`
	ReplaysPeak    int `json:"replays_peak"`
}

// FleetCallRequest is fleet.call's params: a method the member serves over the fleet
// (docs/fleet.md §4.1) and its params, as they would be sent to that member's socket.
type FleetCallRequest struct {
	// The member to call (`fleet.host` of its config).
	Host string `json:"host,omitempty"`
	// The method, one of those a fleet member may serve (its `fleet.allow` decides).
	Method string `json:"method,omitempty"`
	// The method's params.
	Params Open `json:"params,omitempty"`
}

// FleetCallResult is fleet.call's result.
type FleetCallResult struct {
	// The member that answered.
	Host string `json:"host"`
	// The member's result, as its own socket would have answered it.
	Result Open `json:"result"`
}

// FleetTokenRequest is fleet.token's params (docs/fleet.md §3.1).
type FleetTokenRequest struct {
	// The member host the token is for: the only host a client holding it may act as.
	Host string `json:"host"`
	// Issue a new token for the host and revoke its older ones.
	Rotate bool `json:"rotate,omitempty"`
	// Revoke the host's tokens and issue none.
	Revoke bool `json:"revoke,omitempty"`
}

// FleetTokenResult is fleet.token's result.
type FleetTokenResult struct {
	Host string `json:"host"`
	// The new token, shown this once (absent with revoke): the member's
	// fleet.token_file holds it.
	Token *string `json:"token,omitempty"`
	// How many of the host's tokens were revoked; their connections to the hub are
	// closed.
	Revoked int `json:"revoked"`
}

// FleetEventsRequest is fleet.events's params (docs/fleet.md §5.3).
type FleetEventsRequest struct {
	// Per host, the last seq already read: the read starts after it. A host not named
	// here is read from its oldest event the stream holds.
	Since map[string]int64 `json:"since,omitempty"`
	// Only these hosts (default: every host the stream holds events of).
	Hosts []string `json:"hosts,omitempty"`
	// At most this many events (default 500, at most 10000).
	Limit int `json:"limit,omitempty"`
	// With no event after the cursors, wait up to this long (ms, at most 25000) for
	// the first one.
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// FleetEventsResult is fleet.events's result.
type FleetEventsResult struct {
	// The events after the cursors, each host's in its own seq order, in the order
	// the fleet's stream took them.
	Events []FleetEvent `json:"events"`
	// Per host read, the last seq read (the request's cursor when none was): the next
	// read's since.
	Cursors map[string]int64 `json:"cursors"`
	// Whether the limit cut the read short.
	More bool `json:"more"`
}

// FleetEvent is one member's committed event, as it published it.
type FleetEvent struct {
	// The member.
	Host string `json:"host"`
	// The event's seq on that member.
	Seq int64 `json:"seq"`
	// When the member committed it (ms).
	TS int64 `json:"ts"`
	// The event object, as the member's events.subscribe frames carry it.
	Event Open `json:"event"`
}

// FleetMembersResult is fleet.members's result.
type FleetMembersResult struct {
	// Every registered member, by host.
	Members []FleetMember `json:"members"`
}

// FleetMember is one member of fleet.members.
type FleetMember struct {
	// The member's host.
	Host string `json:"host"`
	// Whether it is this server.
	Self bool `json:"self"`
	// Whether it answered a probe just now.
	Reachable bool `json:"reachable"`
	// Why it did not (fleet_unreachable), when it did not.
	Error *Error `json:"error,omitempty"`
	// When it last wrote its view of its agents (ms; null when it never did).
	LastSeen *int64 `json:"last_seen"`
}

// FleetStatus is server.status's fleet object (docs/fleet.md §5.1).
type FleetStatus struct {
	// This member's host in the fleet.
	Host string `json:"host"`
	// Whether this server embeds the fleet's hub.
	Hub bool `json:"hub"`
	// The member's fleet.labels (`agent run --host any --label` places by them).
	Labels []string `json:"labels"`
	// The link to the fleet's NATS: connected, connecting, reconnecting, disconnected
	// or closed.
	Connection string `json:"connection"`
	// The NATS server the member is connected to, credentials removed; null while not
	// connected.
	URL *string `json:"url"`
	// The last event seq the fleet's stream acknowledged (the publish cursor).
	Published int64 `json:"published"`
	// The events committed here that the stream has not acknowledged yet.
	Lag int64 `json:"lag"`
	// When the stream last answered a batch (ms since the epoch); null since the start
	// until it does.
	LastPublishAt *int64 `json:"last_publish_at"`
	// The last failed batch's error; null once a batch succeeded after it.
	Error *string `json:"error"`
	// The fleet-wide provider slots this member holds (fleet.caps); null without
	// fleet caps.
	Leases *FleetLeases `json:"leases"`
}

// FleetLeases is server.status's fleet.leases: the fleet-wide provider slots this
// member holds (docs/fleet.md §4.7).
type FleetLeases struct {
	// waiting (no answer from the fleet yet: the capped providers start nothing), up
	// (the slots held bound them) or down (the fleet has not answered for a lease TTL:
	// this member's own caps alone hold).
	State string `json:"state"`
	// The last failed attempt's error; null once the fleet answered after it.
	Error *string `json:"error"`
	// One per capped provider, by name.
	Providers []FleetLease `json:"providers"`
}

// FleetLease is one capped provider's slots.
type FleetLease struct {
	// The provider.
	Provider string `json:"provider"`
	// Its fleet-wide cap (fleet.caps).
	Cap int `json:"cap"`
	// The slots this member holds a lease for.
	Held int `json:"held"`
}

// HerdrStatus is server.status's herdr object.
type HerdrStatus struct {
	// The herdr binary in use; null when none was found.
	Bin *string `json:"bin"`
	// Whether the binary was found.
	Reachable bool `json:"reachable"`
	// herdr's version, when the owned session answered a ping.
	Version *string `json:"version"`
	// herdr's socket protocol, when the owned session answered a ping.
	Protocol *int `json:"protocol"`
	// The owned session's socket, when it is running.
	Socket *string `json:"socket"`
	// The owned session's name.
	Session string `json:"session"`
	// Whether the owned session is listed as running.
	SessionRunning bool `json:"session_running"`
	// Why the object stops short: no binary (herdr_missing), a failing `herdr session
	// list`, or a failed ping of the running session. Null when nothing failed (a
	// session that is simply not running yet is no error).
	Error *Error `json:"error"`
}

// Integration says which layers of a provider's integration exist.
type Integration struct {
	// orcr has built-in support for the provider.
	Orcr bool `json:"orcr"`
	// herdr reports its integration for the provider installed.
	Herdr bool `json:"herdr"`
	// Whether agents of the provider can run here: both layers, or the orcr layer alone
	// for a provider that needs no herdr integration (gemini, pi, a declared provider
	// without session herdr; docs/providers.md §11.2).
	Supported bool `json:"supported"`
}

// RunRequest is agent.run's params (docs/protocol.md §5.8).
type RunRequest struct {
	Caller
	// The agent's name: one segment, created in the caller's scope. Exactly one of name
	// and path.
	Name string `json:"name,omitempty"`
	// The agent's path, relative to the caller's scope; a leading / makes it absolute.
	Path string `json:"path,omitempty"`
	// The provider (default: the config's defaults.agent).
	Agent string `json:"agent,omitempty"`
	// The first prompt. At most 8 MiB, with no control
	// characters but newline and tab; CRLF and CR are read as LF.
	Prompt string `json:"prompt,omitempty"`
	// When to reap the agent: auto (default), immediate or never.
	GC string `json:"gc,omitempty"`
	// The model (default: the provider's configured model).
	Model string `json:"model,omitempty"`
	// The reasoning effort (default: the provider's configured effort).
	Effort string `json:"effort,omitempty"`
	// The working directory (absolute).
	Cwd string `json:"cwd,omitempty"`
	// Kill the agent after this duration (e.g. 30m).
	Timeout string `json:"timeout,omitempty"`
	// Run the agent in a git worktree of the repository cwd is in, made under its data
	// dir (or an earlier agent's kept one on the same branch), removed when the agent
	// ends (docs/lifecycle.md §8.4).
	Worktree bool `json:"worktree,omitempty"`
	// The worktree's branch (implies worktree; default orcr/<path with / as ->).
	WorktreeBranch string `json:"worktree_branch,omitempty"`
	// Keep the worktree when the agent ends (requires worktree).
	KeepWorktree bool `json:"keep_worktree,omitempty"`
	// A budget for the agent and the agents it spawns: a cost (2usd) or non-cached
	// tokens (500k); at it the agents pause at their turn boundary (docs/usage.md §7.2).
	Budget string `json:"budget,omitempty"`
}

// AskRequest is agent.ask's params: agent.run's without gc, which is always immediate.
type AskRequest struct {
	Caller
	// The agent's name: one segment, created in the caller's scope.
	Name string `json:"name,omitempty"`
	// The agent's path, relative to the caller's scope; a leading / makes it absolute.
	Path string `json:"path,omitempty"`
	// The provider (default: the config's defaults.agent).
	Agent string `json:"agent,omitempty"`
	// The prompt. At most 8 MiB, with no control
	// characters but newline and tab; CRLF and CR are read as LF.
	Prompt string `json:"prompt,omitempty"`
	// The model.
	Model string `json:"model,omitempty"`
	// The reasoning effort.
	Effort string `json:"effort,omitempty"`
	// The working directory (absolute).
	Cwd string `json:"cwd,omitempty"`
	// Give up (and kill the agent) after this duration.
	Timeout string `json:"timeout,omitempty"`
	// Run the agent in a git worktree of the repository cwd is in, as agent.run's
	// worktree: removed when the agent ends after its answer (docs/lifecycle.md §8.4).
	Worktree bool `json:"worktree,omitempty"`
	// The worktree's branch (implies worktree; default orcr/<path with / as ->).
	WorktreeBranch string `json:"worktree_branch,omitempty"`
	// Keep the worktree when the agent ends (requires worktree).
	KeepWorktree bool `json:"keep_worktree,omitempty"`
	// The uuid of the agent an acknowledged agent.run started for this ask: nothing is
	// started, the ask waits on that agent (timeout is then the wait's deadline only)
	// and returns its final response. Clients resume an ask so across a server restart
	// (docs/protocol.md §1.10).
	Resume string `json:"resume,omitempty"`
}

// Run returns the agent.run request an ask stands for (gc immediate).
func (r AskRequest) Run() RunRequest {
	return RunRequest{Caller: r.Caller, Name: r.Name, Path: r.Path, Agent: r.Agent, Prompt: r.Prompt,
		GC: "immediate", Model: r.Model, Effort: r.Effort, Cwd: r.Cwd, Timeout: r.Timeout,
		Worktree: r.Worktree, WorktreeBranch: r.WorktreeBranch, KeepWorktree: r.KeepWorktree}
}

// Ask returns the agent.ask request that asks what r runs; r's gc is dropped (an ask's
// is always immediate).
func (r RunRequest) Ask() AskRequest {
	return AskRequest{Caller: r.Caller, Name: r.Name, Path: r.Path, Agent: r.Agent, Prompt: r.Prompt,
		Model: r.Model, Effort: r.Effort, Cwd: r.Cwd, Timeout: r.Timeout,
		Worktree: r.Worktree, WorktreeBranch: r.WorktreeBranch, KeepWorktree: r.KeepWorktree}
}

// Resumed is the agent.ask request that asks r again about the agent uuid an
// acknowledged agent.run started for it: caller, timeout and uuid only
// (docs/protocol.md §1.10).
func (r AskRequest) Resumed(uuid string) AskRequest {
	return AskRequest{Caller: r.Caller, Timeout: r.Timeout, Resume: uuid}
}

// RunResult is agent.run's result.
type RunResult struct {
	// The agent that was enqueued.
	Agent RunAgent `json:"agent"`
	// The permission mode the provider runs in: bypass, or approvals when
	// remote.approvals mounted the approvals row (docs/remote.md §7).
	Permissions string `json:"permissions"`
}

// RunAgent describes the agent agent.run enqueued.
type RunAgent struct {
	UUID    string  `json:"uuid"`
	Path    string  `json:"path"`
	Agent   string  `json:"agent"`
	Managed bool    `json:"managed"`
	Cwd     *string `json:"cwd"`
	// The agent's data directory (its ORCR_AGENT_DATA_DIR).
	DataDir string `json:"data_dir"`
	Status  Status `json:"status"`
	// 1-based position in the admission queue, while queued.
	QueuePosition *int64 `json:"queue_position,omitempty"`
	ParentID      string `json:"parent_id,omitempty"`
	ParentPath    string `json:"parent_path,omitempty"`
	// The agent's git worktree (only with worktree): where it is or will be made.
	Worktree *AgentWorktree `json:"worktree,omitempty"`
}

// AskResult is agent.ask's result.
type AskResult struct {
	UUID string `json:"uuid"`
	Path string `json:"path"`
	// The agent's final response.
	Response Response `json:"response"`
	// With worktree: the agent's worktree once the ended agent's cleanup has settled
	// (removed, kept, dirty, failed), so a kept one can be found; as it stands when that
	// takes longer than 30 s.
	Worktree *AgentWorktree `json:"worktree,omitempty"`
}

// Response is an agent's final response text.
type Response struct {
	Text string `json:"text"`
	// Whether the turn that produced it had completed.
	Final bool `json:"final"`
	// Read from the pane's screen, not from a transcript: the provider declares none
	// (transcript.format none, docs/providers.md §11.3).
	FromScreen bool `json:"from_screen,omitempty"`
}

// AdoptRequest is agent.adopt's params (beyond the reference, docs/decisions.md D12).
type AdoptRequest struct {
	Caller
	// An unmanaged agent's path or uuid (prefix).
	Target string `json:"target,omitempty"`
	// The managed path it gets, joined under the caller's scope as agent.run's path is.
	Path string `json:"path,omitempty"`
}

// AdoptResult is agent.adopt's result.
type AdoptResult struct {
	// The agent's row as it is now (managed, usually queued): same uuid, new path.
	Agent AgentRow `json:"agent"`
	// The unmanaged path it had.
	FromPath string `json:"from_path"`
	// herdr's conversation pointer the new pane resumes.
	Resume string `json:"resume"`
}

// TokenRequest is agent.token's params (docs/remote.md §3).
type TokenRequest struct {
	Caller
	// An agent path (in the caller's scope) or uuid (prefix).
	Target string `json:"target,omitempty"`
	// Issue a new token and revoke every older one of the agent.
	Rotate bool `json:"rotate,omitempty"`
	// Revoke every token of the agent and issue none.
	Revoke bool `json:"revoke,omitempty"`
}

// TokenResult is agent.token's result.
type TokenResult struct {
	// The agent's uuid: the {agent_id} of its stream URL.
	UUID string `json:"uuid"`
	// The agent's path.
	Path string `json:"path"`
	// The new token, shown this once (absent with revoke).
	Token *string `json:"token,omitempty"`
	// The stream's path on the listener: /agents/<uuid>/ws.
	URLPath string `json:"url_path"`
	// How many tokens were revoked.
	Revoked int `json:"revoked"`
}

// DashboardLoginRequest is dashboard.login's params (docs/dashboard.md §2).
type DashboardLoginRequest struct {
	// Sign every browser out first: revoke every dashboard session and unused link,
	// then issue a new link.
	Rotate bool `json:"rotate,omitempty"`
	// Sign every browser out and issue no link.
	Revoke bool `json:"revoke,omitempty"`
}

// DashboardLoginResult is dashboard.login's result.
type DashboardLoginResult struct {
	// The one-time sign-in link: the listener's address with /?token=<token> (absent
	// with revoke). It works once, within expires_in_s.
	URL *string `json:"url,omitempty"`
	// The link's token alone (43 characters of base64url; absent with revoke).
	Token *string `json:"token,omitempty"`
	// Seconds the link stays valid.
	ExpiresInS int64 `json:"expires_in_s"`
	// How many sessions and unused links were revoked.
	Revoked int `json:"revoked"`
}

// MCPTokenRequest is mcp.token's params (docs/mcp.md §1.1).
type MCPTokenRequest struct {
	// Issue a new token and revoke every older one.
	Rotate bool `json:"rotate,omitempty"`
	// Revoke every token and issue none.
	Revoke bool `json:"revoke,omitempty"`
}

// MCPTokenResult is mcp.token's result.
type MCPTokenResult struct {
	// The new token, shown this once (absent with revoke): the bearer credential of
	// `orcr mcp --http`, 43 characters of base64url.
	Token *string `json:"token,omitempty"`
	// How many tokens were revoked.
	Revoked int `json:"revoked"`
}

// MCPAuthRequest is mcp.auth's params (docs/mcp.md §1.1).
type MCPAuthRequest struct {
	// The bearer token an HTTP request to `orcr mcp --http` presented.
	Token string `json:"token,omitempty"`
}

// MCPAuthResult is mcp.auth's result.
type MCPAuthResult struct {
	// Whether the token is a live MCP token.
	OK bool `json:"ok"`
}

// SendRequest is agent.send's params.
type SendRequest struct {
	Caller
	// An agent path (in the caller's scope) or uuid (prefix).
	Target string `json:"target,omitempty"`
	// The prompt to deliver. At most 8 MiB, with no control
	// characters but newline and tab; CRLF and CR are read as LF.
	Prompt string `json:"prompt,omitempty"`
}

// SendResult is agent.send's result.
type SendResult struct {
	UUID string `json:"uuid"`
	Path string `json:"path"`
	// The agent's status when the prompt was delivered.
	DeliveredWhile Status `json:"delivered_while"`
	// The delivered turn's sequence number.
	InputSeq int64 `json:"input_seq"`
	// Set when nothing was delivered: the agent is paused on a budget ("budget") and the
	// prompt waits in its inbox until budget extend (docs/usage.md §7.3).
	Queued string `json:"queued,omitempty"`
}

// LogsRequest is agent.logs's params.
type LogsRequest struct {
	Caller
	// An agent path (in the caller's scope) or uuid (prefix).
	Target string `json:"target,omitempty"`
	// Only the final assistant message.
	LastResponse bool `json:"last_response,omitempty"`
	// Only the last N entries.
	Tail *int `json:"tail,omitempty"`
	// Accepted and ignored: following is client-side (Client.FollowLogs).
	Follow bool `json:"follow,omitempty"`
	// The pane's screen instead of the transcript: the live screen while the agent has a
	// pane, else the last screen orcr kept with the row (docs/lifecycle.md §11.4).
	Screen bool `json:"screen,omitempty"`
}

// LogsResult is agent.logs's result: the transcript entries, or (last_response) the
// final response.
type LogsResult struct {
	UUID string `json:"uuid"`
	Path string `json:"path"`
	// How the target resolved: "uuid", "active" or "latest_ended".
	Resolved string `json:"resolved"`
	// The agent's creation time (ms).
	CreatedAt int64 `json:"created_at"`
	// The transcript entries, oldest first (absent with last_response).
	Entries []LogEntry `json:"entries,omitzero"`
	// The final response (only with last_response).
	Response *Response `json:"response,omitempty"`
	// The pane's screen (only with screen).
	Screen *Screen `json:"screen,omitempty"`
}

// Screen is the visible text of an agent's pane (agent.logs with screen).
type Screen struct {
	// The screen's text, without ANSI codes.
	Text string `json:"text"`
	// When it was read (ms).
	At int64 `json:"at"`
	// Read from the live pane now; false: the last screen kept with the row, read
	// before its pane went away.
	Live bool `json:"live"`
}

// LogEntry is one transcript entry in the common shape of docs/providers.md §6.1: tool,
// timestamp and the token counts are omitted when absent; text is always present,
// possibly empty.
type LogEntry struct {
	// user, assistant, or a provider's own role.
	Role string `json:"role"`
	// text, thinking, tool_use, tool_result or other.
	Kind string `json:"kind"`
	Text string `json:"text"`
	// The tool's name (tool_use).
	Tool         string `json:"tool,omitempty"`
	Timestamp    string `json:"timestamp,omitempty"`
	InputTokens  *int64 `json:"input_tokens,omitempty"`
	OutputTokens *int64 `json:"output_tokens,omitempty"`
}

// WaitRequest is agent.wait's params.
type WaitRequest struct {
	Caller
	// Patterns, paths or uuids.
	Targets []string `json:"targets,omitempty"`
	// Give up after this duration (a result with timed_out, not an error).
	Timeout string `json:"timeout,omitempty"`
	// Answer as soon as one target settles rather than when all have (docs/protocol.md
	// §5.12); targets not settled then have reason pending.
	Any bool `json:"any,omitempty"`
}

// WaitResult is agent.wait's result.
type WaitResult struct {
	// One entry per agent waited for.
	Targets []WaitTarget `json:"targets"`
	// Every target settled ok.
	AllOK bool `json:"all_ok"`
	// The timeout passed first.
	TimedOut bool `json:"timed_out"`
	// The event seq of the decision.
	DecisionSeq int64 `json:"decision_seq"`
	// With any: the uuid of the target whose settlement ended the wait (the one that
	// settled first); absent when none settled.
	FirstSettled string `json:"first_settled,omitempty"`
}

// First returns the target named by FirstSettled; ok is false when there is none (a
// wait without any, or one that timed out).
func (r WaitResult) First() (t WaitTarget, ok bool) {
	if r.FirstSettled == "" {
		return WaitTarget{}, false
	}
	for _, t := range r.Targets {
		if t.UUID == r.FirstSettled {
			return t, true
		}
	}
	return WaitTarget{}, false
}

// WaitTarget is one entry of agent.wait's targets.
type WaitTarget struct {
	UUID   string `json:"uuid"`
	Path   string `json:"path"`
	Status Status `json:"status"`
	// The agent settled the way a caller hopes (idle after a turn, or ended completed).
	OK bool `json:"ok"`
	// Why it settled (docs/protocol.md §5.12). Not settled: wait_timeout, or pending
	// once an any wait settled on another target.
	Reason     string `json:"reason"`
	ExitReason string `json:"exit_reason,omitempty"`
	// Why an ended agent ended, in words, when orcr knows more than the exit_reason
	// (docs/lifecycle.md §4.3).
	ExitDetail string `json:"exit_detail,omitempty"`
	// What to run next.
	Next WaitNext `json:"next"`
}

// WaitNext is the follow-up command of one wait target (docs/protocol.md §5.12).
type WaitNext struct {
	Kind    string `json:"kind"`
	Command string `json:"command"`
}

// KillRequest is agent.kill's params.
type KillRequest struct {
	Caller
	// Patterns, paths or uuids.
	Targets []string `json:"targets,omitempty"`
	// Also kill unmanaged agents.
	Force bool `json:"force,omitempty"`
	// Only say what a kill would act on.
	Preview bool `json:"preview,omitempty"`
}

// KillResult is agent.kill's result: the kill shape {killed, skipped, all_killed}, or
// with preview the shape {preview, targets}.
type KillResult struct {
	// The agents killed.
	Killed []KillRef `json:"killed"`
	// The agents left alone, with the reason.
	Skipped []KillRef `json:"skipped"`
	// Nothing was skipped.
	AllKilled bool `json:"all_killed"`
	// True for a preview: nothing was killed.
	Preview bool `json:"preview"`
	// The agents a kill would act on (preview only).
	Targets []PreviewTarget `json:"targets"`
}

// MarshalJSON writes the preview shape or the kill shape.
func (r KillResult) MarshalJSON() ([]byte, error) {
	if r.Preview {
		return json.Marshal(struct {
			Preview bool            `json:"preview"`
			Targets []PreviewTarget `json:"targets"`
		}{true, nonNil(r.Targets)})
	}
	return json.Marshal(struct {
		Killed    []KillRef `json:"killed"`
		Skipped   []KillRef `json:"skipped"`
		AllKilled bool      `json:"all_killed"`
	}{nonNil(r.Killed), nonNil(r.Skipped), r.AllKilled})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// KillRef names one agent in a kill result.
type KillRef struct {
	UUID   string `json:"uuid"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

// PreviewTarget is one agent a kill would act on.
type PreviewTarget struct {
	UUID    string `json:"uuid"`
	Path    string `json:"path"`
	Status  Status `json:"status"`
	Managed bool   `json:"managed"`
}

// LsRequest is agent.ls's params.
type LsRequest struct {
	Caller
	// A pattern, path or uuid (prefix), joined under the caller's scope.
	Pattern string `json:"pattern,omitempty"`
	// Only this provider.
	Agent string `json:"agent,omitempty"`
	// Only this status (exact).
	Status string `json:"status,omitempty"`
	// Only managed agents.
	Managed bool `json:"managed,omitempty"`
	// Only unmanaged agents.
	Unmanaged bool `json:"unmanaged,omitempty"`
	// Include ended agents.
	All bool `json:"all,omitempty"`
}

// LsResult is agent.ls's result.
type LsResult struct {
	// The rows in tree order (path, then creation).
	Agents []AgentRow `json:"agents"`
}

// SubscribeRequest is events.subscribe's params.
type SubscribeRequest struct {
	// Deliver events after this seq (0: from the oldest retained).
	SinceSeq int64 `json:"since_seq,omitempty"`
}

// SubscribeResult is events.subscribe's initial result.
type SubscribeResult struct {
	// The subscription id the event frames carry.
	Subscription int64 `json:"subscription"`
	// The first seq the stream may deliver.
	FromSeq int64 `json:"from_seq"`
}

// WatchResult is watch.open's initial result.
type WatchResult struct {
	// The subscription id the event frames carry.
	Subscription int64 `json:"subscription"`
	// The cursor of the snapshot: events after it follow.
	SnapshotSeq int64 `json:"snapshot_seq"`
	// The state at snapshot_seq.
	Snapshot Snapshot `json:"snapshot"`
}

// AttachPrepareRequest is agent.attach.prepare's params.
type AttachPrepareRequest struct {
	Caller
	// An agent path (in the caller's scope) or uuid (prefix).
	Target string `json:"target,omitempty"`
	// Take over input instead of observing.
	Takeover bool `json:"takeover,omitempty"`
	// The attaching client's process id.
	ClientPID int64 `json:"client_pid,omitempty"`
}

// AttachPrepareResult is agent.attach.prepare's result.
type AttachPrepareResult struct {
	UUID     string `json:"uuid"`
	Path     string `json:"path"`
	LeaseID  string `json:"lease_id"`
	Takeover bool   `json:"takeover"`
	// The lease's time to live; heartbeat before it passes.
	TTLMS int64 `json:"ttl_ms"`
	// The herdr attach command to exec: `agent attach <current pane_id>`
	// (docs/decisions.md D6).
	Command []string `json:"command"`
	// The command to run instead when herdr refuses the pane id: `terminal attach
	// <terminal_id>` (D6; absent when command already is that form).
	FallbackCommand []string `json:"fallback_command,omitempty"`
}

// LeaseRequest names an attach lease (agent.attach.heartbeat, agent.attach.release).
type LeaseRequest struct {
	LeaseID string `json:"lease_id,omitempty"`
}

// HeartbeatResult is agent.attach.heartbeat's result.
type HeartbeatResult struct {
	OK bool `json:"ok"`
}

// ReleaseResult is agent.attach.release's result.
type ReleaseResult struct {
	Released bool `json:"released"`
}

// LoopCreateRequest is loop.create's params (docs/loops.md).
type LoopCreateRequest struct {
	// The loop's name (one segment).
	Name string `json:"name,omitempty"`
	// A cron expression (exactly one of cron and once_at).
	Cron string `json:"cron,omitempty"`
	// A one-shot time.
	OnceAt string `json:"once_at,omitempty"`
	// Runs at once (default 1).
	MaxConcurrency int64 `json:"max_concurrency,omitempty"`
	// What a fire at capacity does: queue or skip.
	Overlap string `json:"overlap,omitempty"`
	// Stop a run after this duration.
	Timeout string `json:"timeout,omitempty"`
	// The command's argv.
	Command []string `json:"command,omitempty"`
	// The working directory (absolute).
	Cwd string `json:"cwd,omitempty"`
}

// LoopResult is loop.create's result.
type LoopResult struct {
	Loop CreatedLoop `json:"loop"`
}

// CreatedLoop is the loop a loop.create made: its row, its command and how to remove it.
type CreatedLoop struct {
	LoopRow
	// The command its runs execute.
	Argv []string `json:"argv"`
	// The command that removes the loop.
	Cancel string `json:"cancel"`
}

// LoopUpdateResult is loop.pause's and loop.resume's result.
type LoopUpdateResult struct {
	Updated []LoopNameStatus `json:"updated"`
	Skipped []LoopNameReason `json:"skipped"`
}

// LoopNameStatus is a loop a verb changed, with its status now.
type LoopNameStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// LoopNameReason is a loop a verb removed or skipped, and why.
type LoopNameReason struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// LoopRmResult is loop.rm's result.
type LoopRmResult struct {
	Removed []LoopNameReason `json:"removed"`
	Skipped []LoopNameReason `json:"skipped"`
}

// LoopNamesRequest names loops (loop.pause, loop.resume).
type LoopNamesRequest struct {
	Names []string `json:"names,omitempty"`
}

// LoopRmRequest is loop.rm's params.
type LoopRmRequest struct {
	Caller
	Names []string `json:"names,omitempty"`
	// Also stop the loops' active runs.
	KillActive bool `json:"kill_active,omitempty"`
}

// LoopLsRequest is loop.ls's params.
type LoopLsRequest struct {
	Names  []string `json:"names,omitempty"`
	Status string   `json:"status,omitempty"`
	// Include ended loops.
	All bool `json:"all,omitempty"`
}

// LoopLsResult is loop.ls's result.
type LoopLsResult struct {
	Loops []LoopRow `json:"loops"`
}

// LoopLogsRequest is loop.logs's params.
type LoopLogsRequest struct {
	Name string `json:"name,omitempty"`
	// A run id (default: the latest run).
	Run string `json:"run,omitempty"`
	// command (the run's output) or orcr (orcr's events).
	Source string `json:"source,omitempty"`
	Tail   *int   `json:"tail,omitempty"`
	// Accepted and ignored: following is client-side.
	Follow bool `json:"follow,omitempty"`
}

// LoopLogsResult is loop.logs's result.
type LoopLogsResult struct {
	Lines []LoopLogLine `json:"lines"`
}

// LoopLogLine is one line of loop.logs: a run's output (source command) or a scheduler
// event (source orcr).
type LoopLogLine struct {
	// "<loop>/<run_id>", or "<loop>" for an event of no run.
	Run    string `json:"run"`
	Source string `json:"source"`
	TS     int64  `json:"ts"`
	// stdout or stderr (source command only).
	Stream string `json:"stream,omitempty"`
	Text   string `json:"text"`
}

// LoopRunRequest names a loop (loop.run.start).
type LoopRunRequest struct {
	Name string `json:"name,omitempty"`
}

// LoopRunResult is loop.run.start's result.
type LoopRunResult struct {
	Run StartedRun `json:"run"`
}

// StartedRun is the run a loop.run.start made.
type StartedRun struct {
	UUID  string `json:"uuid"`
	RunID string `json:"run_id"`
	Path  string `json:"path"`
	Loop  string `json:"loop"`
	Kind  string `json:"kind"`
	// running, or pending when the loop is at capacity.
	Status string `json:"status"`
}

// LoopRunStopRequest is loop.run.stop's params.
type LoopRunStopRequest struct {
	Name string `json:"name,omitempty"`
	// A run id (default: every active run).
	Run string `json:"run,omitempty"`
}

// LoopRunStopResult is loop.run.stop's result.
type LoopRunStopResult struct {
	Stopped []RunStopped `json:"stopped"`
	Skipped []RunSkipped `json:"skipped"`
}

// RunStopped is a run a stop ended: stopped, canceled (it was pending), or the status it
// had already reached.
type RunStopped struct {
	RunID  string `json:"run_id"`
	Path   string `json:"path"`
	Status string `json:"status"`
}

// RunSkipped is a run a stop left alone.
type RunSkipped struct {
	RunID  string `json:"run_id"`
	Reason string `json:"reason"`
	Status string `json:"status"`
}

// LoopRunLsRequest is loop.run.ls's params.
type LoopRunLsRequest struct {
	Name   string `json:"name,omitempty"`
	Status string `json:"status,omitempty"`
	// Include ended runs.
	All bool `json:"all,omitempty"`
}

// LoopRunLsResult is loop.run.ls's result.
type LoopRunLsResult struct {
	Runs []RunRow `json:"runs"`
}

// UsageRequest is usage.report's params (docs/usage.md §4).
type UsageRequest struct {
	// Group by agent, path (the path's first depth segments), provider, model, loop or
	// day (the server's local day); absent: the totals alone.
	By string `json:"by,omitempty"`
	// By path: how many leading segments of the path a group keeps (default 1).
	Depth int `json:"depth,omitempty"`
	// Only the turns completed at or after this time (unix ms; absent: all).
	Since int64 `json:"since,omitempty"`
	// Only the turns of the agents at this path and under it (a full path, never
	// joined under a caller's scope).
	Path string `json:"path,omitempty"`
	// Also list the last report of every quota window (the result's quota,
	// docs/usage.md §7).
	Quota bool `json:"quota,omitempty"`
}

// UsageSum is what a set of turns used: tokens by kind and the cost of its priced turns.
type UsageSum struct {
	// Turns that reported usage.
	Turns int64 `json:"turns"`
	// Input not read from the cache.
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	// The part of output_tokens spent reasoning (codex reports it).
	ReasoningTokens int64 `json:"reasoning_tokens"`
	// The cost of the priced turns in US dollars, at the prices of when each completed.
	CostUSD float64 `json:"cost_usd"`
	// Turns whose model had no price: their tokens count, their cost is not known.
	UnpricedTurns int64 `json:"unpriced_turns"`
}

// UsageRow is one group of usage.report.
type UsageRow struct {
	// The group: the agent's uuid, the path prefix, the provider, model or loop name
	// ("" for none: no model named, outside any loop), or the day YYYY-MM-DD.
	Key string `json:"key"`
	// By agent: the agent's path.
	Path string `json:"path,omitempty"`
	UsageSum
}

// UsageResult is usage.report's result.
type UsageResult struct {
	// The grouping asked for ("" for totals only).
	By string `json:"by"`
	// The groups, in key order (by day: oldest first).
	Rows []UsageRow `json:"rows"`
	// The sum of every group.
	Total UsageSum `json:"total"`
	// The models of the selected turns that had no price (config prices, docs/config.md).
	UnpricedModels []string `json:"unpriced_models"`
	// With quota: the last report of every quota window, by provider, account and
	// window; absent without.
	Quota []QuotaWindow `json:"quota,omitempty"`
}

import type { MethodTransport, Subscription } from "./wire.js";
/** Every method of the socket protocol, sorted. */
export declare const PROTOCOL_METHODS: readonly ["agent.adopt", "agent.ask", "agent.attach.heartbeat", "agent.attach.prepare", "agent.attach.release", "agent.kill", "agent.logs", "agent.ls", "agent.run", "agent.send", "agent.token", "agent.wait", "api.schema", "api.snapshot", "budget.extend", "budget.ls", "dashboard.login", "events.subscribe", "fleet.call", "fleet.events", "fleet.members", "fleet.token", "loop.create", "loop.logs", "loop.ls", "loop.pause", "loop.resume", "loop.rm", "loop.run.ls", "loop.run.start", "loop.run.stop", "mcp.auth", "mcp.token", "provider.check", "provider.ls", "quota.record", "server.handshake", "server.status", "server.stop", "usage.report", "watch.open"];
/** A method name of PROTOCOL_METHODS. */
export type ProtocolMethod = (typeof PROTOCOL_METHODS)[number];
/** The methods that answer with an initial result, then event frames. */
export declare const STREAMING_METHODS: readonly ["events.subscribe", "watch.open"];
/** The event kinds the schema registers, sorted. */
export declare const EVENT_KINDS: readonly ["agent.close_applied", "agent.close_requested", "agent.created", "agent.ended", "agent.input_applied", "agent.input_requested", "agent.location_changed", "agent.move_applied", "agent.move_requested", "agent.rerouted", "agent.response_captured", "agent.spawn_applied", "agent.spawn_requested", "agent.stall_cleared", "agent.stalled", "agent.status_changed", "agent.turn_completed", "agent.worktree_add_applied", "agent.worktree_add_requested", "agent.worktree_remove_applied", "agent.worktree_remove_requested", "attach.ended", "attach.started", "budget.exceeded", "budget.extended", "budget.resumed", "budget.warned", "loop.coalesced", "loop.created", "loop.ended", "loop.fired", "loop.paused", "loop.removed", "loop.resumed", "loop.skipped", "loop_run.ended", "loop_run.signal_applied", "loop_run.signal_requested", "loop_run.spawn_applied", "loop_run.spawn_requested", "loop_run.started", "loop_run.stopping", "provider.paused", "provider.resumed", "queue.promoted", "quota.warned", "server_stopping"];
/** The error codes of protocol 1 with their CLI exit codes, in the schema's order. */
export declare const ERROR_CODES: readonly [{
    readonly code: "not_found";
    readonly exit: 6;
    readonly description: "target, loop or run resolved to nothing; ambiguous uuid prefix";
}, {
    readonly code: "invalid_request";
    readonly exit: 1;
    readonly description: "bad envelope, params, names, paths, durations, cron or flags";
}, {
    readonly code: "state_conflict";
    readonly exit: 7;
    readonly description: "wrong state for the operation; uniqueness collisions";
}, {
    readonly code: "blocked";
    readonly exit: 4;
    readonly description: "agent.ask target needs a human";
}, {
    readonly code: "timeout";
    readonly exit: 3;
    readonly description: "agent.ask deadline (the agent's own or the ask's wait)";
}, {
    readonly code: "integration_missing";
    readonly exit: 2;
    readonly description: "provider lacks the orcr or the herdr integration";
}, {
    readonly code: "transcript_unavailable";
    readonly exit: 1;
    readonly description: "final response or transcript not identifiable";
}, {
    readonly code: "environment_error";
    readonly exit: 2;
    readonly description: "home, config, store, lock, server start, herdr, platform, version";
}, {
    readonly code: "server_error";
    readonly exit: 1;
    readonly description: "internal failure, cursor expiry";
}];
/**
 * Params of `agent.adopt` (turn an unmanaged agent into a managed one, resuming its conversation).
 * AdoptRequest is agent.adopt's params (beyond the reference, docs/decisions.md D12).
 */
export interface AgentAdoptParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** The managed path it gets, joined under the caller's scope as agent.run's path is. */
    path?: string;
    /** An unmanaged agent's path or uuid (prefix). */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.adopt`.
 * AdoptResult is agent.adopt's result.
 */
export interface AgentAdoptResult {
    /** The agent's row as it is now (managed, usually queued): same uuid, new path. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    /** The unmanaged path it had. */
    from_path?: string;
    /** herdr's conversation pointer the new pane resumes. */
    resume?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.ask` (run with gc immediate, wait, and return the final response).
 * AskRequest is agent.ask's params: agent.run's without gc, which is always immediate.
 */
export interface AgentAskParams {
    /** The provider (default: the config's defaults.agent). */
    agent?: string;
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** The working directory (absolute). */
    cwd?: string;
    /** The reasoning effort. */
    effort?: string;
    /** Keep the worktree when the agent ends (requires worktree). */
    keep_worktree?: boolean;
    /** The model. */
    model?: string;
    /** The agent's name: one segment, created in the caller's scope. */
    name?: string;
    /** The agent's path, relative to the caller's scope; a leading / makes it absolute. */
    path?: string;
    /**
     * The prompt. At most 8 MiB, with no control
     * characters but newline and tab; CRLF and CR are read as LF.
     */
    prompt?: string;
    /**
     * The uuid of the agent an acknowledged agent.run started for this ask: nothing is
     * started, the ask waits on that agent (timeout is then the wait's deadline only)
     * and returns its final response. Clients resume an ask so across a server restart
     * (docs/protocol.md §1.10).
     */
    resume?: string;
    /** Give up (and kill the agent) after this duration. */
    timeout?: string;
    /**
     * Run the agent in a git worktree of the repository cwd is in, as agent.run's
     * worktree: removed when the agent ends after its answer (docs/lifecycle.md §8.4).
     */
    worktree?: boolean;
    /** The worktree's branch (implies worktree; default orcr/<path with / as ->). */
    worktree_branch?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.ask`.
 * AskResult is agent.ask's result.
 */
export interface AgentAskResult {
    path?: string;
    /** The agent's final response. */
    response?: {
        /** Whether the turn that produced it had completed. */
        final?: boolean;
        /**
         * Read from the pane's screen, not from a transcript: the provider declares none
         * (transcript.format none, docs/providers.md §11.3).
         */
        from_screen?: boolean;
        text?: string;
        [key: string]: unknown;
    };
    uuid?: string;
    /**
     * With worktree: the agent's worktree once the ended agent's cleanup has settled
     * (removed, kept, dirty, failed), so a kept one can be found; as it stands when that
     * takes longer than 30 s.
     */
    worktree?: {
        /** The branch checked out there. */
        branch?: string;
        /** Whether the worktree is kept when the agent ends (keep_worktree). */
        keep?: boolean;
        /** The worktree's directory: the agent's cwd. */
        path?: string;
        /** The repository's common git directory. */
        repo?: string;
        /**
         * pending (queued, not made yet), creating, ready, removing; once the agent has
         * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
         * refused the removal) or unused (the agent ended before it was made).
         */
        state?: string;
        [key: string]: unknown;
    };
    [key: string]: unknown;
}
/**
 * Params of `agent.attach.heartbeat` (extend an attach lease).
 * LeaseRequest names an attach lease (agent.attach.heartbeat, agent.attach.release).
 */
export interface AgentAttachHeartbeatParams {
    lease_id?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.attach.heartbeat`.
 * HeartbeatResult is agent.attach.heartbeat's result.
 */
export interface AgentAttachHeartbeatResult {
    ok?: boolean;
    [key: string]: unknown;
}
/**
 * Params of `agent.attach.prepare` (take an attach lease and return the herdr attach command).
 * AttachPrepareRequest is agent.attach.prepare's params.
 */
export interface AgentAttachPrepareParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** The attaching client's process id. */
    client_pid?: number;
    /** Take over input instead of observing. */
    takeover?: boolean;
    /** An agent path (in the caller's scope) or uuid (prefix). */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.attach.prepare`.
 * AttachPrepareResult is agent.attach.prepare's result.
 */
export interface AgentAttachPrepareResult {
    /**
     * The herdr attach command to exec: `agent attach <current pane_id>`
     * (docs/decisions.md D6).
     */
    command?: string[] | null;
    /**
     * The command to run instead when herdr refuses the pane id: `terminal attach
     * <terminal_id>` (D6; absent when command already is that form).
     */
    fallback_command?: string[];
    lease_id?: string;
    path?: string;
    takeover?: boolean;
    /** The lease's time to live; heartbeat before it passes. */
    ttl_ms?: number;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.attach.release` (release an attach lease).
 * LeaseRequest names an attach lease (agent.attach.heartbeat, agent.attach.release).
 */
export interface AgentAttachReleaseParams {
    lease_id?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.attach.release`.
 * ReleaseResult is agent.attach.release's result.
 */
export interface AgentAttachReleaseResult {
    released?: boolean;
    [key: string]: unknown;
}
/**
 * Params of `agent.kill` (kill agents by pattern or uuid).
 * KillRequest is agent.kill's params.
 */
export interface AgentKillParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Also kill unmanaged agents. */
    force?: boolean;
    /** Only say what a kill would act on. */
    preview?: boolean;
    /** Patterns, paths or uuids. */
    targets?: string[];
    [key: string]: unknown;
}
/**
 * Result of `agent.kill`.
 * KillResult is agent.kill's result: the kill shape {killed, skipped, all_killed}, or with preview the shape {preview, targets}.
 */
export interface AgentKillResult {
    /** Nothing was skipped. */
    all_killed?: boolean;
    /** The agents killed. */
    killed?: {
        path?: string;
        reason?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    /** True for a preview: nothing was killed. */
    preview?: boolean;
    /** The agents left alone, with the reason. */
    skipped?: {
        path?: string;
        reason?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    /** The agents a kill would act on (preview only). */
    targets?: {
        managed?: boolean;
        path?: string;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `agent.logs` (read an agent's native transcript or last response).
 * LogsRequest is agent.logs's params.
 */
export interface AgentLogsParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Accepted and ignored: following is client-side (Client.FollowLogs). */
    follow?: boolean;
    /** Only the final assistant message. */
    last_response?: boolean;
    /**
     * The pane's screen instead of the transcript: the live screen while the agent has a
     * pane, else the last screen orcr kept with the row (docs/lifecycle.md §11.4).
     */
    screen?: boolean;
    /** Only the last N entries. */
    tail?: number;
    /** An agent path (in the caller's scope) or uuid (prefix). */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.logs`.
 * LogsResult is agent.logs's result: the transcript entries, or (last_response) the final response.
 */
export interface AgentLogsResult {
    /** The agent's creation time (ms). */
    created_at?: number;
    /** The transcript entries, oldest first (absent with last_response). */
    entries?: {
        input_tokens?: number;
        /** text, thinking, tool_use, tool_result or other. */
        kind?: string;
        output_tokens?: number;
        /** user, assistant, or a provider's own role. */
        role?: string;
        text?: string;
        timestamp?: string;
        /** The tool's name (tool_use). */
        tool?: string;
        [key: string]: unknown;
    }[];
    path?: string;
    /** How the target resolved: "uuid", "active" or "latest_ended". */
    resolved?: string;
    /** The final response (only with last_response). */
    response?: {
        /** Whether the turn that produced it had completed. */
        final?: boolean;
        /**
         * Read from the pane's screen, not from a transcript: the provider declares none
         * (transcript.format none, docs/providers.md §11.3).
         */
        from_screen?: boolean;
        text?: string;
        [key: string]: unknown;
    };
    /** The pane's screen (only with screen). */
    screen?: {
        /** When it was read (ms). */
        at?: number;
        /**
         * Read from the live pane now; false: the last screen kept with the row, read
         * before its pane went away.
         */
        live?: boolean;
        /** The screen's text, without ANSI codes. */
        text?: string;
        [key: string]: unknown;
    };
    uuid?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.ls` (list agents in tree order).
 * LsRequest is agent.ls's params.
 */
export interface AgentLsParams {
    /** Only this provider. */
    agent?: string;
    /** Include ended agents. */
    all?: boolean;
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Only managed agents. */
    managed?: boolean;
    /** A pattern, path or uuid (prefix), joined under the caller's scope. */
    pattern?: string;
    /** Only this status (exact). */
    status?: string;
    /** Only unmanaged agents. */
    unmanaged?: boolean;
    [key: string]: unknown;
}
/**
 * Result of `agent.ls`.
 * LsResult is agent.ls's result.
 */
export interface AgentLsResult {
    /** The rows in tree order (path, then creation). */
    agents?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `agent.run` (enqueue a managed agent at a path).
 * RunRequest is agent.run's params (docs/protocol.md §5.8).
 */
export interface AgentRunParams {
    /** The provider (default: the config's defaults.agent). */
    agent?: string;
    /**
     * A budget for the agent and the agents it spawns: a cost (2usd) or non-cached
     * tokens (500k); at it the agents pause at their turn boundary (docs/usage.md §7.2).
     */
    budget?: string;
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** The working directory (absolute). */
    cwd?: string;
    /** The reasoning effort (default: the provider's configured effort). */
    effort?: string;
    /** When to reap the agent: auto (default), immediate or never. */
    gc?: string;
    /** Keep the worktree when the agent ends (requires worktree). */
    keep_worktree?: boolean;
    /** The model (default: the provider's configured model). */
    model?: string;
    /**
     * The agent's name: one segment, created in the caller's scope. Exactly one of name
     * and path.
     */
    name?: string;
    /** The agent's path, relative to the caller's scope; a leading / makes it absolute. */
    path?: string;
    /**
     * The first prompt. At most 8 MiB, with no control
     * characters but newline and tab; CRLF and CR are read as LF.
     */
    prompt?: string;
    /** Kill the agent after this duration (e.g. 30m). */
    timeout?: string;
    /**
     * Run the agent in a git worktree of the repository cwd is in, made under its data
     * dir (or an earlier agent's kept one on the same branch), removed when the agent
     * ends (docs/lifecycle.md §8.4).
     */
    worktree?: boolean;
    /** The worktree's branch (implies worktree; default orcr/<path with / as ->). */
    worktree_branch?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.run`.
 * RunResult is agent.run's result.
 */
export interface AgentRunResult {
    /** The agent that was enqueued. */
    agent?: {
        agent?: string;
        cwd?: string | null;
        /** The agent's data directory (its ORCR_AGENT_DATA_DIR). */
        data_dir?: string;
        managed?: boolean;
        parent_id?: string;
        parent_path?: string;
        path?: string;
        /** 1-based position in the admission queue, while queued. */
        queue_position?: number;
        status?: string;
        uuid?: string;
        /** The agent's git worktree (only with worktree): where it is or will be made. */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    /**
     * The permission mode the provider runs in: bypass, or approvals when
     * remote.approvals mounted the approvals row (docs/remote.md §7).
     */
    permissions?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.send` (deliver a prompt to an existing agent).
 * SendRequest is agent.send's params.
 */
export interface AgentSendParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /**
     * The prompt to deliver. At most 8 MiB, with no control
     * characters but newline and tab; CRLF and CR are read as LF.
     */
    prompt?: string;
    /** An agent path (in the caller's scope) or uuid (prefix). */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.send`.
 * SendResult is agent.send's result.
 */
export interface AgentSendResult {
    /** The agent's status when the prompt was delivered. */
    delivered_while?: string;
    /** The delivered turn's sequence number. */
    input_seq?: number;
    path?: string;
    /**
     * Set when nothing was delivered: the agent is paused on a budget ("budget") and the
     * prompt waits in its inbox until budget extend (docs/usage.md §7.3).
     */
    queued?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.token` (issue, rotate or revoke an agent's remote stream token).
 * TokenRequest is agent.token's params (docs/remote.md §3).
 */
export interface AgentTokenParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Revoke every token of the agent and issue none. */
    revoke?: boolean;
    /** Issue a new token and revoke every older one of the agent. */
    rotate?: boolean;
    /** An agent path (in the caller's scope) or uuid (prefix). */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.token`.
 * TokenResult is agent.token's result.
 */
export interface AgentTokenResult {
    /** The agent's path. */
    path?: string;
    /** How many tokens were revoked. */
    revoked?: number;
    /** The new token, shown this once (absent with revoke). */
    token?: string;
    /** The stream's path on the listener: /agents/<uuid>/ws. */
    url_path?: string;
    /** The agent's uuid: the {agent_id} of its stream URL. */
    uuid?: string;
    [key: string]: unknown;
}
/**
 * Params of `agent.wait` (block until every target settles, or with any until one does).
 * WaitRequest is agent.wait's params.
 */
export interface AgentWaitParams {
    /**
     * Answer as soon as one target settles rather than when all have (docs/protocol.md
     * §5.12); targets not settled then have reason pending.
     */
    any?: boolean;
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Patterns, paths or uuids. */
    targets?: string[];
    /** Give up after this duration (a result with timed_out, not an error). */
    timeout?: string;
    [key: string]: unknown;
}
/**
 * Result of `agent.wait`.
 * WaitResult is agent.wait's result.
 */
export interface AgentWaitResult {
    /** Every target settled ok. */
    all_ok?: boolean;
    /** The event seq of the decision. */
    decision_seq?: number;
    /**
     * With any: the uuid of the target whose settlement ended the wait (the one that
     * settled first); absent when none settled.
     */
    first_settled?: string;
    /** One entry per agent waited for. */
    targets?: {
        /**
         * Why an ended agent ended, in words, when orcr knows more than the exit_reason
         * (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        /** What to run next. */
        next?: {
            command?: string;
            kind?: string;
            [key: string]: unknown;
        };
        /** The agent settled the way a caller hopes (idle after a turn, or ended completed). */
        ok?: boolean;
        path?: string;
        /**
         * Why it settled (docs/protocol.md §5.12). Not settled: wait_timeout, or pending
         * once an any wait settled on another target.
         */
        reason?: string;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    /** The timeout passed first. */
    timed_out?: boolean;
    [key: string]: unknown;
}
/** Params of `api.schema` (this schema document). */
export interface ApiSchemaParams {
    [key: string]: unknown;
}
/** Result of `api.schema`. */
export interface ApiSchemaResult {
    [key: string]: unknown;
}
/** Params of `api.snapshot` (consistent snapshot of agents, loops and queue with its event cursor). */
export interface ApiSnapshotParams {
    [key: string]: unknown;
}
/**
 * Result of `api.snapshot`.
 * Snapshot is the SnapshotDoc of docs/protocol.md §4.3 (api.snapshot, watch.open).
 */
export interface ApiSnapshotResult {
    /** every non-ended agent (incl. lost), by path then created_at */
    agents?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    }[] | null;
    /** active and paused loops, by created_at */
    loops?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        runs?: {
            due_at?: number | null;
            kind?: string;
            run_id?: string;
            started_at?: number | null;
            status?: string;
            uuid?: string;
            [key: string]: unknown;
        }[] | null;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    /** the queued subset of Agents, in path order */
    queue?: {
        agent?: string | null;
        path?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    snapshot_seq?: number;
    [key: string]: unknown;
}
/**
 * Params of `budget.extend` (raise a budget's limit and deliver what its paused agents queued).
 * BudgetExtendRequest is budget.extend's params.
 */
export interface BudgetExtendParams {
    /** The amount to add, in the budget's unit: 1usd, 100k. */
    by?: string;
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /**
     * A budget name (a config rule, or run:<path>) or an agent (path in the caller's
     * scope, or uuid): then the budget that paused it.
     */
    target?: string;
    [key: string]: unknown;
}
/**
 * Result of `budget.extend`.
 * BudgetExtendResult is budget.extend's result: the scope after, and the paths of the agents it resumed.
 */
export interface BudgetExtendResult {
    budget?: {
        /** The budget: a config rule's name, or run:<path>. */
        budget?: string;
        limit?: number;
        /** The agent of a per-agent scope or of a run budget ("" = none). */
        path?: string;
        /** The paths of the agents this budget paused. */
        paused?: string[] | null;
        /** The scope: a per-agent rule's agent uuid, a per-day rule's local day, else "". */
        scope?: string;
        /** Spent and Limit (extensions included) in Unit. */
        spent?: number;
        /** ok, warned or exceeded. */
        state?: string;
        /**
         * usd, tokens (non-cached: input, output, cache writes) or percent (a quota window's
         * used share, docs/usage.md §8.1).
         */
        unit?: string;
        warn_at?: number;
        [key: string]: unknown;
    };
    resumed?: string[] | null;
    [key: string]: unknown;
}
/** Params of `budget.ls` (every budget with what it spent, its limit and its state). */
export interface BudgetLsParams {
    [key: string]: unknown;
}
/**
 * Result of `budget.ls`.
 * BudgetLsResult is budget.ls's result.
 */
export interface BudgetLsResult {
    budgets?: {
        /** The budget: a config rule's name, or run:<path>. */
        budget?: string;
        limit?: number;
        /** The agent of a per-agent scope or of a run budget ("" = none). */
        path?: string;
        /** The paths of the agents this budget paused. */
        paused?: string[] | null;
        /** The scope: a per-agent rule's agent uuid, a per-day rule's local day, else "". */
        scope?: string;
        /** Spent and Limit (extensions included) in Unit. */
        spent?: number;
        /** ok, warned or exceeded. */
        state?: string;
        /**
         * usd, tokens (non-cached: input, output, cache writes) or percent (a quota window's
         * used share, docs/usage.md §8.1).
         */
        unit?: string;
        warn_at?: number;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `dashboard.login` (issue a one-time sign-in link for the web dashboard, or sign every browser out).
 * DashboardLoginRequest is dashboard.login's params (docs/dashboard.md §2).
 */
export interface DashboardLoginParams {
    /** Sign every browser out and issue no link. */
    revoke?: boolean;
    /**
     * Sign every browser out first: revoke every dashboard session and unused link,
     * then issue a new link.
     */
    rotate?: boolean;
    [key: string]: unknown;
}
/**
 * Result of `dashboard.login`.
 * DashboardLoginResult is dashboard.login's result.
 */
export interface DashboardLoginResult {
    /** Seconds the link stays valid. */
    expires_in_s?: number;
    /** How many sessions and unused links were revoked. */
    revoked?: number;
    /** The link's token alone (43 characters of base64url; absent with revoke). */
    token?: string;
    /**
     * The one-time sign-in link: the listener's address with /?token=<token> (absent
     * with revoke). It works once, within expires_in_s.
     */
    url?: string;
    [key: string]: unknown;
}
/**
 * Params of `events.subscribe` (stream events after since_seq (replay, then live)).
 * SubscribeRequest is events.subscribe's params.
 */
export interface EventsSubscribeParams {
    /** Deliver events after this seq (0: from the oldest retained). */
    since_seq?: number;
    [key: string]: unknown;
}
/**
 * The initial result of `events.subscribe`; event frames follow it.
 * SubscribeResult is events.subscribe's initial result.
 */
export interface EventsSubscribeResult {
    /** The first seq the stream may deliver. */
    from_seq?: number;
    /** The subscription id the event frames carry. */
    subscription?: number;
    [key: string]: unknown;
}
/**
 * Params of `fleet.call` (call a method on a fleet member through this server's fleet connection).
 * FleetCallRequest is fleet.call's params: a method the member serves over the fleet (docs/fleet.md §4.1) and its params, as they would be sent to that member's socket.
 */
export interface FleetCallParams {
    /** The member to call (`fleet.host` of its config). */
    host?: string;
    /** The method, one of those a fleet member may serve (its `fleet.allow` decides). */
    method?: string;
    /** The method's params. */
    params?: Record<string, unknown>;
    [key: string]: unknown;
}
/**
 * Result of `fleet.call`.
 * FleetCallResult is fleet.call's result.
 */
export interface FleetCallResult {
    /** The member that answered. */
    host?: string;
    /** The member's result, as its own socket would have answered it. */
    result?: Record<string, unknown>;
    [key: string]: unknown;
}
/**
 * Params of `fleet.events` (every member's events after a cursor per host, from the fleet's stream).
 * FleetEventsRequest is fleet.events's params (docs/fleet.md §5.3).
 */
export interface FleetEventsParams {
    /** Only these hosts (default: every host the stream holds events of). */
    hosts?: string[];
    /** At most this many events (default 500, at most 10000). */
    limit?: number;
    /**
     * Per host, the last seq already read: the read starts after it. A host not named
     * here is read from its oldest event the stream holds.
     */
    since?: Record<string, number>;
    /**
     * With no event after the cursors, wait up to this long (ms, at most 25000) for
     * the first one.
     */
    wait_ms?: number;
    [key: string]: unknown;
}
/**
 * Result of `fleet.events`.
 * FleetEventsResult is fleet.events's result.
 */
export interface FleetEventsResult {
    /**
     * Per host read, the last seq read (the request's cursor when none was): the next
     * read's since.
     */
    cursors?: Record<string, number> | null;
    /**
     * The events after the cursors, each host's in its own seq order, in the order
     * the fleet's stream took them.
     */
    events?: {
        /** The event object, as the member's events.subscribe frames carry it. */
        event?: Record<string, unknown>;
        /** The member. */
        host?: string;
        /** The event's seq on that member. */
        seq?: number;
        /** When the member committed it (ms). */
        ts?: number;
        [key: string]: unknown;
    }[] | null;
    /** Whether the limit cut the read short. */
    more?: boolean;
    [key: string]: unknown;
}
/** Params of `fleet.members` (the fleet's members: reachable or not, and when each was last seen). */
export interface FleetMembersParams {
    [key: string]: unknown;
}
/**
 * Result of `fleet.members`.
 * FleetMembersResult is fleet.members's result.
 */
export interface FleetMembersResult {
    /** Every registered member, by host. */
    members?: {
        /** Why it did not (fleet_unreachable), when it did not. */
        error?: {
            code?: string;
            details?: Record<string, unknown>;
            message?: string;
            [key: string]: unknown;
        };
        /** The member's host. */
        host?: string;
        /** When it last wrote its view of its agents (ms; null when it never did). */
        last_seen?: number | null;
        /** Whether it answered a probe just now. */
        reachable?: boolean;
        /** Whether it is this server. */
        self?: boolean;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `fleet.token` (issue, rotate or revoke a member's credential on the fleet's hub).
 * FleetTokenRequest is fleet.token's params (docs/fleet.md §3.1).
 */
export interface FleetTokenParams {
    /** The member host the token is for: the only host a client holding it may act as. */
    host?: string;
    /** Revoke the host's tokens and issue none. */
    revoke?: boolean;
    /** Issue a new token for the host and revoke its older ones. */
    rotate?: boolean;
    [key: string]: unknown;
}
/**
 * Result of `fleet.token`.
 * FleetTokenResult is fleet.token's result.
 */
export interface FleetTokenResult {
    host?: string;
    /**
     * How many of the host's tokens were revoked; their connections to the hub are
     * closed.
     */
    revoked?: number;
    /**
     * The new token, shown this once (absent with revoke): the member's
     * fleet.token_file holds it.
     */
    token?: string;
    [key: string]: unknown;
}
/**
 * Params of `loop.create` (create a durable cron or one-shot loop for a command).
 * LoopCreateRequest is loop.create's params (docs/loops.md).
 */
export interface LoopCreateParams {
    /** The command's argv. */
    command?: string[];
    /** A cron expression (exactly one of cron and once_at). */
    cron?: string;
    /** The working directory (absolute). */
    cwd?: string;
    /** Runs at once (default 1). */
    max_concurrency?: number;
    /** The loop's name (one segment). */
    name?: string;
    /** A one-shot time. */
    once_at?: string;
    /** What a fire at capacity does: queue or skip. */
    overlap?: string;
    /** Stop a run after this duration. */
    timeout?: string;
    [key: string]: unknown;
}
/**
 * Result of `loop.create`.
 * LoopResult is loop.create's result.
 */
export interface LoopCreateResult {
    loop?: {
        /** The command its runs execute. */
        argv?: string[] | null;
        cadence?: string;
        cadence_kind?: string;
        /** The command that removes the loop. */
        cancel?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    [key: string]: unknown;
}
/**
 * Params of `loop.logs` (read a loop's run output and orcr events).
 * LoopLogsRequest is loop.logs's params.
 */
export interface LoopLogsParams {
    /** Accepted and ignored: following is client-side. */
    follow?: boolean;
    name?: string;
    /** A run id (default: the latest run). */
    run?: string;
    /** command (the run's output) or orcr (orcr's events). */
    source?: string;
    tail?: number;
    [key: string]: unknown;
}
/**
 * Result of `loop.logs`.
 * LoopLogsResult is loop.logs's result.
 */
export interface LoopLogsResult {
    lines?: {
        /** "<loop>/<run_id>", or "<loop>" for an event of no run. */
        run?: string;
        source?: string;
        /** stdout or stderr (source command only). */
        stream?: string;
        text?: string;
        ts?: number;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.ls` (list loops).
 * LoopLsRequest is loop.ls's params.
 */
export interface LoopLsParams {
    /** Include ended loops. */
    all?: boolean;
    names?: string[];
    status?: string;
    [key: string]: unknown;
}
/**
 * Result of `loop.ls`.
 * LoopLsResult is loop.ls's result.
 */
export interface LoopLsResult {
    loops?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.pause` (pause loops).
 * LoopNamesRequest names loops (loop.pause, loop.resume).
 */
export interface LoopPauseParams {
    names?: string[];
    [key: string]: unknown;
}
/**
 * Result of `loop.pause`.
 * LoopUpdateResult is loop.pause's and loop.resume's result.
 */
export interface LoopPauseResult {
    skipped?: {
        name?: string;
        reason?: string;
        [key: string]: unknown;
    }[] | null;
    updated?: {
        name?: string;
        status?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.resume` (resume loops).
 * LoopNamesRequest names loops (loop.pause, loop.resume).
 */
export interface LoopResumeParams {
    names?: string[];
    [key: string]: unknown;
}
/**
 * Result of `loop.resume`.
 * LoopUpdateResult is loop.pause's and loop.resume's result.
 */
export interface LoopResumeResult {
    skipped?: {
        name?: string;
        reason?: string;
        [key: string]: unknown;
    }[] | null;
    updated?: {
        name?: string;
        status?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.rm` (remove loops, optionally stopping active runs).
 * LoopRmRequest is loop.rm's params.
 */
export interface LoopRmParams {
    /** The caller's ORCR_ID: an agent uuid or a loop-run uuid. */
    caller_id?: string;
    /** The caller's ORCR_PATH (absolute, no leading slash). */
    caller_path?: string;
    /** Also stop the loops' active runs. */
    kill_active?: boolean;
    names?: string[];
    [key: string]: unknown;
}
/**
 * Result of `loop.rm`.
 * LoopRmResult is loop.rm's result.
 */
export interface LoopRmResult {
    removed?: {
        name?: string;
        reason?: string;
        [key: string]: unknown;
    }[] | null;
    skipped?: {
        name?: string;
        reason?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.run.ls` (list a loop's runs).
 * LoopRunLsRequest is loop.run.ls's params.
 */
export interface LoopRunLsParams {
    /** Include ended runs. */
    all?: boolean;
    name?: string;
    status?: string;
    [key: string]: unknown;
}
/**
 * Result of `loop.run.ls`.
 * LoopRunLsResult is loop.run.ls's result.
 */
export interface LoopRunLsResult {
    runs?: {
        agents?: number;
        created_at?: number;
        due_at?: number | null;
        ended_at?: number | null;
        exit_code?: number | null;
        kind?: string;
        loop_uuid?: string;
        path?: string;
        pgid?: number | null;
        pid?: number | null;
        run_id?: string;
        signal?: number | null;
        started_at?: number | null;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `loop.run.start` (start a manual run of a loop).
 * LoopRunRequest names a loop (loop.run.start).
 */
export interface LoopRunStartParams {
    name?: string;
    [key: string]: unknown;
}
/**
 * Result of `loop.run.start`.
 * LoopRunResult is loop.run.start's result.
 */
export interface LoopRunStartResult {
    run?: {
        kind?: string;
        loop?: string;
        path?: string;
        run_id?: string;
        /** running, or pending when the loop is at capacity. */
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    [key: string]: unknown;
}
/**
 * Params of `loop.run.stop` (stop a loop's runs).
 * LoopRunStopRequest is loop.run.stop's params.
 */
export interface LoopRunStopParams {
    name?: string;
    /** A run id (default: every active run). */
    run?: string;
    [key: string]: unknown;
}
/**
 * Result of `loop.run.stop`.
 * LoopRunStopResult is loop.run.stop's result.
 */
export interface LoopRunStopResult {
    skipped?: {
        reason?: string;
        run_id?: string;
        status?: string;
        [key: string]: unknown;
    }[] | null;
    stopped?: {
        path?: string;
        run_id?: string;
        status?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `mcp.auth` (check a bearer token presented to orcr mcp --http).
 * MCPAuthRequest is mcp.auth's params (docs/mcp.md §1.1).
 */
export interface McpAuthParams {
    /** The bearer token an HTTP request to `orcr mcp --http` presented. */
    token?: string;
    [key: string]: unknown;
}
/**
 * Result of `mcp.auth`.
 * MCPAuthResult is mcp.auth's result.
 */
export interface McpAuthResult {
    /** Whether the token is a live MCP token. */
    ok?: boolean;
    [key: string]: unknown;
}
/**
 * Params of `mcp.token` (issue, rotate or revoke the bearer token of orcr mcp --http).
 * MCPTokenRequest is mcp.token's params (docs/mcp.md §1.1).
 */
export interface McpTokenParams {
    /** Revoke every token and issue none. */
    revoke?: boolean;
    /** Issue a new token and revoke every older one. */
    rotate?: boolean;
    [key: string]: unknown;
}
/**
 * Result of `mcp.token`.
 * MCPTokenResult is mcp.token's result.
 */
export interface McpTokenResult {
    /** How many tokens were revoked. */
    revoked?: number;
    /**
     * The new token, shown this once (absent with revoke): the bearer credential of
     * `orcr mcp --http`, 43 characters of base64url.
     */
    token?: string;
    [key: string]: unknown;
}
/**
 * Params of `provider.check` (check which parts of a provider's contract hold: its command, flags, herdr layer and a real turn).
 * ProviderCheckRequest is provider.check's params.
 */
export interface ProviderCheckParams {
    /** The provider: built in or declared. */
    name?: string;
    /**
     * Only the checks that start nothing: the command, its --version and --help, the
     * flags, the herdr layer.
     */
    static?: boolean;
    [key: string]: unknown;
}
/**
 * Result of `provider.check`.
 * ProviderCheckResult is provider.check's result.
 */
export interface ProviderCheckResult {
    name?: string;
    /** No part failed. */
    ok?: boolean;
    parts?: {
        /** command, version, help, flags, herdr, turn, answer or end. */
        part?: string;
        /** What was found, or why it failed or is unknown. */
        reason?: string;
        /** ok, failed or unknown. */
        state?: string;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/** Params of `provider.ls` (the built-in and declared providers with their support state). */
export interface ProviderLsParams {
    [key: string]: unknown;
}
/**
 * Result of `provider.ls`.
 * ProviderLsResult is provider.ls's result, sorted by name.
 */
export interface ProviderLsResult {
    providers?: {
        /** Whether herdr's integration for it is installed. */
        herdr?: boolean;
        /** builtin (compiled into orcr) or declared (providers.<name> of config.json). */
        kind?: string;
        name?: string;
        /** Whether the support rule needs herdr's integration (docs/providers.md §1, §11.2). */
        needs_herdr?: boolean;
        /** Whether agents of it can run: the support rule holds. */
        supported?: boolean;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Params of `quota.record` (record the quota windows a provider reported outside its transcript (claude's status line)).
 * QuotaRecordRequest is quota.record's params (docs/usage.md §7.1): the quota windows a provider reported outside its transcript — claude's status line, through `orcr __statusline` in orcr's own claude panes.
 */
export interface QuotaRecordParams {
    /**
     * Account is the account key the pane computed from its environment (docs/usage.md
     * §7.3), at most 4096 bytes; the server keeps the account it recorded for Agent when
     * it knows the agent.
     */
    account?: string;
    /** Agent is the uuid of the agent whose pane reported them (ORCR_ID), or "". */
    agent?: string;
    /**
     * Provider is the provider whose account the windows belong to (claude; any
     * provider orcr runs).
     */
    provider?: string;
    /**
     * Windows are the windows as reported: window, used_percent (0–100),
     * window_minutes and resets_at (unix ms; 0 when not reported).
     */
    windows?: {
        /**
         * Account is the provider's login the window belongs to; "" is the login the
         * provider's agents run under (orcr runs all of a provider's agents under one).
         */
        account?: string;
        agent_uuid?: string;
        /** ObservedAt is when orcr read it (unix ms), AgentUUID the agent whose turn reported it. */
        observed_at?: number;
        provider?: string;
        /** ResetsAt is when the window resets (unix ms; 0: not reported). */
        resets_at?: number;
        /**
         * State is the window judged at the time of the answer (docs/usage.md §7.2): ok,
         * warn (used at quota.warn_at or more), paused (at quota.pause_at or more) or reset
         * (its reset is past: nothing of it is used any more, used_percent 0). Empty in
         * quota.record's windows.
         */
        state?: string;
        /** UsedPercent is how much of the window is used, 0–100. */
        used_percent?: number;
        /** Window is primary or secondary (codex), five_hour or seven_day (claude). */
        window?: string;
        /** WindowMinutes is the window's length (0: not reported). */
        window_minutes?: number;
        [key: string]: unknown;
    }[] | null;
    [key: string]: unknown;
}
/**
 * Result of `quota.record`.
 * QuotaRecordResult is quota.record's result.
 */
export interface QuotaRecordResult {
    /**
     * PausedUntil is the provider's pause the windows started or extended (unix ms), 0
     * for none (quota.pause_at, docs/usage.md §7).
     */
    paused_until?: number;
    /** Windows is the number of windows recorded. */
    windows?: number;
    [key: string]: unknown;
}
/** Params of `server.handshake` (readiness probe: pid, protocol and store path). */
export interface ServerHandshakeParams {
    [key: string]: unknown;
}
/**
 * Result of `server.handshake`.
 * Handshake is the result of server.handshake, the readiness probe.
 */
export interface ServerHandshakeResult {
    /** The server's process id. */
    pid?: number;
    /** The socket protocol the server speaks. */
    protocol?: number;
    /** Always true once the server answers. */
    ready?: boolean;
    /** The path of the server's SQLite store. */
    store?: string;
    [key: string]: unknown;
}
/** Params of `server.status` (server health: herdr, integrations, counts, loops, drift). */
export interface ServerStatusParams {
    [key: string]: unknown;
}
/**
 * Result of `server.status`.
 * StatusResult is server.status's result (docs/protocol.md §5.2).
 */
export interface ServerStatusResult {
    /**
     * config.json as the server started with it, and whether the file on disk now
     * differs (docs/config.md §1.9).
     */
    config?: {
        /**
         * Whether the file on disk now differs from the one the server started with: a
         * restart applies the change.
         */
        changed?: boolean;
        /**
         * The keys that differ, as dotted paths to the second level (remote.listen; a whole
         * section when it was added or removed), sorted; empty when unchanged or when either
         * file is not a JSON object.
         */
        changed_keys?: string[] | null;
        /** The hex SHA-256 of the file the server started with; null when there was none. */
        digest?: string | null;
        /**
         * Why the file on disk now would refuse a start (a restart would fail); null when it
         * loads.
         */
        error?: string | null;
        /** The config file's path. */
        path?: string;
        [key: string]: unknown;
    };
    /**
     * Agent and pane counts (live, queued, blocked, stalled, unmanaged, unmarked_panes,
     * unknown_marked_panes).
     */
    counts?: Record<string, number> | null;
    /**
     * Reconciliation counters (lost, repaired, unknown_marked_panes, unmarked_panes,
     * root_shell_panes).
     */
    drift?: Record<string, number> | null;
    /** This member of a fleet (docs/fleet.md §5.1); null when the fleet is off. */
    fleet?: {
        /**
         * The link to the fleet's NATS: connected, connecting, reconnecting, disconnected
         * or closed.
         */
        connection?: string;
        /** The last failed batch's error; null once a batch succeeded after it. */
        error?: string | null;
        /** This member's host in the fleet. */
        host?: string;
        /** Whether this server embeds the fleet's hub. */
        hub?: boolean;
        /** The member's fleet.labels (`agent run --host any --label` places by them). */
        labels?: string[] | null;
        /** The events committed here that the stream has not acknowledged yet. */
        lag?: number;
        /**
         * When the stream last answered a batch (ms since the epoch); null since the start
         * until it does.
         */
        last_publish_at?: number | null;
        /**
         * The fleet-wide provider slots this member holds (fleet.caps); null without
         * fleet caps.
         */
        leases?: {
            /** The last failed attempt's error; null once the fleet answered after it. */
            error?: string | null;
            /** One per capped provider, by name. */
            providers?: {
                /** Its fleet-wide cap (fleet.caps). */
                cap?: number;
                /** The slots this member holds a lease for. */
                held?: number;
                /** The provider. */
                provider?: string;
                [key: string]: unknown;
            }[] | null;
            /**
             * waiting (no answer from the fleet yet: the capped providers start nothing), up
             * (the slots held bound them) or down (the fleet has not answered for a lease TTL:
             * this member's own caps alone hold).
             */
            state?: string;
            [key: string]: unknown;
        } | null;
        /** The last event seq the fleet's stream acknowledged (the publish cursor). */
        published?: number;
        /**
         * The NATS server the member is connected to, credentials removed; null while not
         * connected.
         */
        url?: string | null;
        [key: string]: unknown;
    } | null;
    /** herdr as the server sees it. */
    herdr?: {
        /** The herdr binary in use; null when none was found. */
        bin?: string | null;
        /**
         * Why the object stops short: no binary (herdr_missing), a failing `herdr session
         * list`, or a failed ping of the running session. Null when nothing failed (a
         * session that is simply not running yet is no error).
         */
        error?: {
            code?: string;
            details?: Record<string, unknown>;
            message?: string;
            [key: string]: unknown;
        } | null;
        /** herdr's socket protocol, when the owned session answered a ping. */
        protocol?: number | null;
        /** Whether the binary was found. */
        reachable?: boolean;
        /** The owned session's name. */
        session?: string;
        /** Whether the owned session is listed as running. */
        session_running?: boolean;
        /** The owned session's socket, when it is running. */
        socket?: string | null;
        /** herdr's version, when the owned session answered a ping. */
        version?: string | null;
        [key: string]: unknown;
    };
    /** Per provider: whether orcr and herdr each have an integration. */
    integrations?: Record<string, {
        /** herdr reports its integration for the provider installed. */
        herdr?: boolean;
        /** orcr has built-in support for the provider. */
        orcr?: boolean;
        /**
         * Whether agents of the provider can run here: both layers, or the orcr layer alone
         * for a provider that needs no herdr integration (gemini, pi, a declared provider
         * without session herdr; docs/providers.md §11.2).
         */
        supported?: boolean;
        [key: string]: unknown;
    }> | null;
    /** Active and paused loops. */
    loops?: {
        name?: string;
        next_fire_at?: number | null;
        status?: string;
        [key: string]: unknown;
    }[] | null;
    /**
     * Whether the service manager will start the server at login, so loops fire after a
     * reboot (the unit is installed and, on Linux, enabled on a machine systemd runs).
     */
    loops_firing?: boolean;
    /**
     * Every configured notify target, by name (docs/notify.md §6); empty without
     * notify targets.
     */
    notify?: {
        /** Deliveries the target took. */
        delivered?: number;
        /** Deliveries refused at notify.queue_limit. */
        dropped?: number;
        /** Deliveries given up: attempts exhausted or a permanent error. */
        failed?: number;
        /** When the last delivery succeeded (ms). */
        last_delivered_at?: number | null;
        /** The last attempt's error, when one failed. */
        last_error?: string | null;
        /** When that error happened (ms). */
        last_error_at?: number | null;
        /** The target's name in notify.targets. */
        name?: string;
        /** When the earliest pending attempt is due (ms); null when nothing is pending. */
        next_attempt_at?: number | null;
        /** Deliveries waiting for an attempt (a first one or a retry). */
        pending?: number;
        /** herdr, webhook or command. */
        type?: string;
        [key: string]: unknown;
    }[] | null;
    /** The providers the admission queue holds back at a usage limit, by provider. */
    paused?: {
        /**
         * Account is the login the pause holds (docs/usage.md §7.3); "" holds every
         * account of the provider.
         */
        account?: string;
        /** AgentUUID is the agent whose limit started (or last extended) the pause. */
        agent_uuid?: string;
        /** Message is the screen line that named the limit, when one did. */
        message?: string;
        provider?: string;
        /**
         * Since is when the pause began, Until when the queue promotes the provider's agents
         * again (unix ms).
         */
        since?: number;
        /**
         * Source is how Until was found: reset (read from the limit message), backoff
         * (timings.limit_backoff) or quota (a quota window reached quota.pause_at; Until is
         * its reset, docs/usage.md §7).
         */
        source?: string;
        until?: number;
        [key: string]: unknown;
    }[] | null;
    /** The server's process id. */
    pid?: number;
    /** The socket protocol. */
    protocol?: number;
    /**
     * The last report of every quota window, by provider, account and window
     * (docs/usage.md §7).
     */
    quota?: {
        /**
         * Account is the provider's login the window belongs to; "" is the login the
         * provider's agents run under (orcr runs all of a provider's agents under one).
         */
        account?: string;
        agent_uuid?: string;
        /** ObservedAt is when orcr read it (unix ms), AgentUUID the agent whose turn reported it. */
        observed_at?: number;
        provider?: string;
        /** ResetsAt is when the window resets (unix ms; 0: not reported). */
        resets_at?: number;
        /**
         * State is the window judged at the time of the answer (docs/usage.md §7.2): ok,
         * warn (used at quota.warn_at or more), paused (at quota.pause_at or more) or reset
         * (its reset is past: nothing of it is used any more, used_percent 0). Empty in
         * quota.record's windows.
         */
        state?: string;
        /** UsedPercent is how much of the window is used, 0–100. */
        used_percent?: number;
        /** Window is primary or secondary (codex), five_hour or seven_day (claude). */
        window?: string;
        /** WindowMinutes is the window's length (0: not reported). */
        window_minutes?: number;
        [key: string]: unknown;
    }[] | null;
    /** The remote stream's listener (docs/remote.md §2). */
    remote?: {
        /** The bound host:port, when listening. */
        address?: string | null;
        /** Open stream connections. */
        connections?: number;
        /** Whether the listener is up (remote.listen is set and bound). */
        listening?: boolean;
        /**
         * Replay reads holding a slot now, connections waiting for one, and the most
         * ever held at once (at most remote.max_concurrent_replays).
         */
        replays_active?: number;
        replays_peak?: number;
        replays_waiting?: number;
        /** Whether the listener speaks TLS. */
        tls?: boolean;
        [key: string]: unknown;
    };
    /** When ended agents are forgotten, and how many were (docs/lifecycle.md §12.4). */
    retention?: {
        /**
         * How long an ended agent is kept after it ended (retention.ended_for), in ms; null
         * when that limit is off.
         */
        ended_for_ms?: number | null;
        /**
         * How many ended agents are kept, the newest (retention.ended_max); null when that
         * limit is off.
         */
        ended_max?: number | null;
        /** When the last ones were forgotten (ms); null when none ever was. */
        last_trim_at?: number | null;
        /** Ended agents forgotten so far, across restarts. */
        trimmed_total?: number;
        [key: string]: unknown;
    };
    /**
     * The concurrency slots, held and free (docs/lifecycle.md §7): what `agent run
     * --host any` places a run by (docs/fleet.md §4.3).
     */
    slots?: {
        /** The provider of a request without agent (defaults.agent). */
        default_agent?: string;
        /** max - used, at least 0. */
        free?: number;
        /** concurrency.max. */
        max?: number;
        /** Every provider with a cap of its own or holding a slot, by name. */
        providers?: Record<string, {
            /** concurrency.<provider>; null: only concurrency.max caps it. */
            cap?: number | null;
            /** The smaller of its cap's free slots and the global free slots, at least 0. */
            free?: number;
            /** Its agents holding a slot. */
            used?: number;
            [key: string]: unknown;
        }> | null;
        /** The managed agents holding a slot. */
        used?: number;
        [key: string]: unknown;
    };
    /** The socket path. */
    socket?: string;
    /** The agents whose open turn is marked stalled, longest stalled first. */
    stalled?: {
        path?: string;
        stalled_at?: number;
        uuid?: string;
        [key: string]: unknown;
    }[] | null;
    /** The store path. */
    store?: string;
    /** What the turns completed since the server's local midnight used (docs/usage.md). */
    today?: {
        cache_read_tokens?: number;
        cache_write_tokens?: number;
        /** The cost of the priced turns in US dollars, at the prices of when each completed. */
        cost_usd?: number;
        /** Input not read from the cache. */
        input_tokens?: number;
        output_tokens?: number;
        /** The part of output_tokens spent reasoning (codex reports it). */
        reasoning_tokens?: number;
        /** Turns that reported usage. */
        turns?: number;
        /** Turns whose model had no price: their tokens count, their cost is not known. */
        unpriced_turns?: number;
        [key: string]: unknown;
    };
    /** Milliseconds since the server started. */
    uptime_ms?: number;
    /** The server's package version. */
    version?: string;
    [key: string]: unknown;
}
/** Params of `server.stop` (graceful control-plane stop; agent panes are untouched). */
export interface ServerStopParams {
    [key: string]: unknown;
}
/**
 * Result of `server.stop`.
 * StopResult is the result of server.stop.
 */
export interface ServerStopResult {
    /** "stopping": the response is written, then the server stops. */
    status?: string;
    [key: string]: unknown;
}
/**
 * Params of `usage.report` (tokens and cost of completed turns, grouped by agent, path, provider, model, loop or day).
 * UsageRequest is usage.report's params (docs/usage.md §4).
 */
export interface UsageReportParams {
    /**
     * Group by agent, path (the path's first depth segments), provider, model, loop or
     * day (the server's local day); absent: the totals alone.
     */
    by?: string;
    /** By path: how many leading segments of the path a group keeps (default 1). */
    depth?: number;
    /**
     * Only the turns of the agents at this path and under it (a full path, never
     * joined under a caller's scope).
     */
    path?: string;
    /**
     * Also list the last report of every quota window (the result's quota,
     * docs/usage.md §7).
     */
    quota?: boolean;
    /** Only the turns completed at or after this time (unix ms; absent: all). */
    since?: number;
    [key: string]: unknown;
}
/**
 * Result of `usage.report`.
 * UsageResult is usage.report's result.
 */
export interface UsageReportResult {
    /** The grouping asked for ("" for totals only). */
    by?: string;
    /**
     * With quota: the last report of every quota window, by provider, account and
     * window; absent without.
     */
    quota?: {
        /**
         * Account is the provider's login the window belongs to; "" is the login the
         * provider's agents run under (orcr runs all of a provider's agents under one).
         */
        account?: string;
        agent_uuid?: string;
        /** ObservedAt is when orcr read it (unix ms), AgentUUID the agent whose turn reported it. */
        observed_at?: number;
        provider?: string;
        /** ResetsAt is when the window resets (unix ms; 0: not reported). */
        resets_at?: number;
        /**
         * State is the window judged at the time of the answer (docs/usage.md §7.2): ok,
         * warn (used at quota.warn_at or more), paused (at quota.pause_at or more) or reset
         * (its reset is past: nothing of it is used any more, used_percent 0). Empty in
         * quota.record's windows.
         */
        state?: string;
        /** UsedPercent is how much of the window is used, 0–100. */
        used_percent?: number;
        /** Window is primary or secondary (codex), five_hour or seven_day (claude). */
        window?: string;
        /** WindowMinutes is the window's length (0: not reported). */
        window_minutes?: number;
        [key: string]: unknown;
    }[];
    /** The groups, in key order (by day: oldest first). */
    rows?: {
        cache_read_tokens?: number;
        cache_write_tokens?: number;
        /** The cost of the priced turns in US dollars, at the prices of when each completed. */
        cost_usd?: number;
        /** Input not read from the cache. */
        input_tokens?: number;
        /**
         * The group: the agent's uuid, the path prefix, the provider, model or loop name
         * ("" for none: no model named, outside any loop), or the day YYYY-MM-DD.
         */
        key?: string;
        output_tokens?: number;
        /** By agent: the agent's path. */
        path?: string;
        /** The part of output_tokens spent reasoning (codex reports it). */
        reasoning_tokens?: number;
        /** Turns that reported usage. */
        turns?: number;
        /** Turns whose model had no price: their tokens count, their cost is not known. */
        unpriced_turns?: number;
        [key: string]: unknown;
    }[] | null;
    /** The sum of every group. */
    total?: {
        cache_read_tokens?: number;
        cache_write_tokens?: number;
        /** The cost of the priced turns in US dollars, at the prices of when each completed. */
        cost_usd?: number;
        /** Input not read from the cache. */
        input_tokens?: number;
        output_tokens?: number;
        /** The part of output_tokens spent reasoning (codex reports it). */
        reasoning_tokens?: number;
        /** Turns that reported usage. */
        turns?: number;
        /** Turns whose model had no price: their tokens count, their cost is not known. */
        unpriced_turns?: number;
        [key: string]: unknown;
    };
    /** The models of the selected turns that had no price (config prices, docs/config.md). */
    unpriced_models?: string[] | null;
    [key: string]: unknown;
}
/** Params of `watch.open` (snapshot plus a pinned subscription under one cursor). */
export interface WatchOpenParams {
    [key: string]: unknown;
}
/**
 * The initial result of `watch.open`; event frames follow it.
 * WatchResult is watch.open's initial result.
 */
export interface WatchOpenResult {
    /** The state at snapshot_seq. */
    snapshot?: {
        /** every non-ended agent (incl. lost), by path then created_at */
        agents?: {
            agent?: string | null;
            blocked_kind?: string;
            /**
             * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
             * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
             */
            budget_paused?: string;
            created_at?: number;
            cwd?: string | null;
            effort?: string | null;
            ended_at?: number;
            /**
             * ExitDetail says in words why the agent ended, when orcr knows more than the
             * exit_reason: a provider that exited or showed nothing during its start, a screen
             * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
             */
            exit_detail?: string;
            exit_reason?: string;
            herdr_session?: string;
            idle_since?: number;
            last_status_change_at?: number | null;
            managed?: boolean;
            model?: string | null;
            move_state?: string;
            pane_id?: string | null;
            parent_id?: string;
            /** only when parent_id names an agent row */
            parent_path?: string;
            parked_at?: number;
            path?: string;
            /** derived; only when status = queued */
            queue_position?: number;
            /**
             * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
             * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
             */
            routed_from?: string;
            /**
             * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
             * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
             */
            screen_at?: number;
            /**
             * Stalled is true while the open turn is marked stalled: working, but neither screen
             * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
             * Never acted on by orcr; progress clears it.
             */
            stalled?: boolean;
            /** when the turn was marked stalled */
            stalled_at?: number;
            starting_at?: number;
            status?: string;
            /** of the latest turn */
            turn_completed_at?: number;
            /** of the latest turn (highest input_seq) */
            turn_delivered_at?: number;
            /**
             * What the agent's completed turns used, kept on its row as each turn completes
             * (docs/usage.md §4): absent until a turn reported usage.
             */
            usage?: {
                /** The cost of the priced turns in US dollars. */
                cost_usd?: number;
                /** Every token of those turns: input, output, cache reads and cache writes. */
                tokens?: number;
                /** Turns that reported usage. */
                turns?: number;
                /** Turns whose model had no price. */
                unpriced_turns?: number;
                [key: string]: unknown;
            };
            uuid?: string;
            /**
             * The git worktree the agent runs in: only for an agent started with worktree
             * (docs/lifecycle.md §8.4).
             */
            worktree?: {
                /** The branch checked out there. */
                branch?: string;
                /** Whether the worktree is kept when the agent ends (keep_worktree). */
                keep?: boolean;
                /** The worktree's directory: the agent's cwd. */
                path?: string;
                /** The repository's common git directory. */
                repo?: string;
                /**
                 * pending (queued, not made yet), creating, ready, removing; once the agent has
                 * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
                 * refused the removal) or unused (the agent ended before it was made).
                 */
                state?: string;
                [key: string]: unknown;
            };
            [key: string]: unknown;
        }[] | null;
        /** active and paused loops, by created_at */
        loops?: {
            cadence?: string;
            cadence_kind?: string;
            created_at?: number;
            ended_reason?: string | null;
            last_fire_at?: number | null;
            max_concurrency?: number;
            name?: string;
            next_fire_at?: number | null;
            overlap?: string;
            runs?: {
                due_at?: number | null;
                kind?: string;
                run_id?: string;
                started_at?: number | null;
                status?: string;
                uuid?: string;
                [key: string]: unknown;
            }[] | null;
            status?: string;
            tz?: string;
            uuid?: string;
            [key: string]: unknown;
        }[] | null;
        /** the queued subset of Agents, in path order */
        queue?: {
            agent?: string | null;
            path?: string;
            uuid?: string;
            [key: string]: unknown;
        }[] | null;
        snapshot_seq?: number;
        [key: string]: unknown;
    };
    /** The cursor of the snapshot: events after it follow. */
    snapshot_seq?: number;
    /** The subscription id the event frames carry. */
    subscription?: number;
    [key: string]: unknown;
}
/**
 * The event object of `agent.close_applied` frames.
 * AgentCloseApplied: the pane was closed or not.
 */
export interface AgentCloseAppliedEvent {
    kind: "agent.close_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    repaired?: boolean;
    run_uuid?: string;
    target?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.close_requested` frames.
 * AgentCloseRequested: herdr is asked to close the agent's pane, for reason (an adoption's with the new path).
 */
export interface AgentCloseRequestedEvent {
    kind: "agent.close_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    op_id?: string;
    path?: string;
    reason?: string;
    run_uuid?: string;
    target?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.created` frames.
 * AgentCreated: a row was created, queued (agent.run) or idle/working (an unmanaged agent found in herdr, managed false).
 */
export interface AgentCreatedEvent {
    kind: "agent.created";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    /** false for an unmanaged agent; absent for a managed one. */
    managed?: boolean;
    path?: string;
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.ended` frames.
 * AgentEnded: the row ended, with its exit_reason (null for an unmanaged agent).
 */
export interface AgentEndedEvent {
    kind: "agent.ended";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    exit_reason?: string | null;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.input_applied` frames.
 * AgentInputApplied: the prompt was submitted or not; recovery says whether it typed it again (typed_again) or undid the turn (rolled_back).
 */
export interface AgentInputAppliedEvent {
    kind: "agent.input_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    input_seq?: number;
    ok?: boolean;
    op_id?: string;
    repaired?: boolean;
    rolled_back?: boolean;
    run_uuid?: string;
    typed_again?: number;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.input_requested` frames.
 * AgentInputRequested: a prompt of bytes bytes is typed into target for turn input_seq; a managed agent's carries the probe recovery looks for and the status the turn opened from, an unmanaged one's its herdr session.
 */
export interface AgentInputRequestedEvent {
    kind: "agent.input_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    bytes?: number;
    from?: string;
    input_seq?: number;
    op_id?: string;
    probe?: string;
    run_uuid?: string;
    session?: string;
    target?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.location_changed` frames.
 * AgentLocationChanged: the agent's pane moved.
 */
export interface AgentLocationChangedEvent {
    kind: "agent.location_changed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    pane_id?: string;
    terminal_id?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.move_applied` frames.
 * AgentMoveApplied: the pane moved (its new ids) or not (rolled_back when recovery found it never did).
 */
export interface AgentMoveAppliedEvent {
    kind: "agent.move_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    pane_id?: string;
    repaired?: boolean;
    rolled_back?: boolean;
    run_uuid?: string;
    tab_id?: string;
    terminal_id?: string;
    uuid?: string;
    workspace_id?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.move_requested` frames.
 * AgentMoveRequested: herdr is asked to park or unpark the agent's pane.
 */
export interface AgentMoveRequestedEvent {
    kind: "agent.move_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    label?: string;
    move?: string;
    move_token?: string;
    op_id?: string;
    run_uuid?: string;
    target?: string;
    uuid?: string;
    workspace?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.rerouted` frames.
 * AgentRerouted: a queued row was promoted as routing.fallback's provider, model and effort instead of the paused provider it was queued for (docs/lifecycle.md §7.6).
 */
export interface AgentReroutedEvent {
    kind: "agent.rerouted";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    effort?: string;
    from?: string;
    model?: string;
    to?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.response_captured` frames.
 * AgentResponseCaptured: the completed turn's response was found in the transcript.
 */
export interface AgentResponseCapturedEvent {
    kind: "agent.response_captured";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    transcript_locator?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.spawn_applied` frames.
 * AgentSpawnApplied: the pane was made (its ids) or not.
 */
export interface AgentSpawnAppliedEvent {
    kind: "agent.spawn_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    pane_id?: string;
    repaired?: boolean;
    run_uuid?: string;
    tab_id?: string;
    terminal_id?: string;
    uuid?: string;
    workspace_id?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.spawn_requested` frames.
 * AgentSpawnRequested: herdr is asked for the agent's pane.
 */
export interface AgentSpawnRequestedEvent {
    kind: "agent.spawn_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    argv?: string[] | null;
    cwd?: string;
    label?: string;
    op_id?: string;
    run_uuid?: string;
    uuid?: string;
    workspace?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.stall_cleared` frames.
 * AgentStallCleared: the stall mark went, for reason (status, progress).
 */
export interface AgentStallClearedEvent {
    kind: "agent.stall_cleared";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    reason?: string;
    stalled?: boolean;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.stalled` frames.
 * AgentStalled: the open turn input_seq made no progress for the provider's stall_after (docs/lifecycle.md §10.7); progress_at is the last progress seen (unix ms).
 */
export interface AgentStalledEvent {
    kind: "agent.stalled";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    input_seq?: number;
    progress_at?: number;
    stalled?: boolean;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.status_changed` frames.
 * AgentStatusChanged: the row moved to status.
 */
export interface AgentStatusChangedEvent {
    kind: "agent.status_changed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    adopted_from?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    blocked_kind?: string;
    exit_reason?: string | null;
    input_seq?: number;
    /** Only from the debug transitions. */
    path?: string;
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.turn_completed` frames.
 * AgentTurnCompleted: the turn input_seq completed.
 */
export interface AgentTurnCompletedEvent {
    kind: "agent.turn_completed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    input_seq?: number;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.worktree_add_applied` frames.
 * AgentWorktreeAddApplied: the worktree is there (reused when it was already) or not.
 */
export interface AgentWorktreeAddAppliedEvent {
    kind: "agent.worktree_add_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    branch?: string;
    error?: string;
    ok?: boolean;
    op_id?: string;
    repaired?: boolean;
    reused?: boolean;
    run_uuid?: string;
    uuid?: string;
    worktree?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.worktree_add_requested` frames.
 * AgentWorktreeAddRequested: the agent's git worktree is made (create) or reused.
 */
export interface AgentWorktreeAddRequestedEvent {
    kind: "agent.worktree_add_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    base?: string;
    branch?: string;
    create?: boolean;
    new_branch?: boolean;
    op_id?: string;
    repo?: string;
    run_uuid?: string;
    uuid?: string;
    worktree?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.worktree_remove_applied` frames.
 * AgentWorktreeRemoveApplied: what became of the worktree (removed, dirty, failed).
 */
export interface AgentWorktreeRemoveAppliedEvent {
    kind: "agent.worktree_remove_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    repaired?: boolean;
    run_uuid?: string;
    state?: string;
    uuid?: string;
    worktree?: string;
    [key: string]: unknown;
}
/**
 * The event object of `agent.worktree_remove_requested` frames.
 * AgentWorktreeRemoveRequested: the ended agent's worktree is removed.
 */
export interface AgentWorktreeRemoveRequestedEvent {
    kind: "agent.worktree_remove_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    branch?: string;
    op_id?: string;
    repo?: string;
    run_uuid?: string;
    uuid?: string;
    worktree?: string;
    [key: string]: unknown;
}
/**
 * The event object of `attach.ended` frames.
 * AttachEnded: an attach lease was released, or expired (reason expired).
 */
export interface AttachEndedEvent {
    kind: "attach.ended";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    lease_id?: string;
    reason?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `attach.started` frames.
 * AttachStarted: an attach lease began.
 */
export interface AttachStartedEvent {
    kind: "attach.started";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    lease_id?: string;
    mode?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `budget.exceeded` frames.
 * BudgetExceeded: a turn of the agent found a budget's scope at its limit; the agent is paused at this turn boundary and its sends wait in its inbox (docs/usage.md §8.3).
 */
export interface BudgetExceededEvent {
    kind: "budget.exceeded";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    budget?: string;
    interrupted?: boolean;
    limit?: number;
    scope?: string;
    spent?: number;
    unit?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `budget.extended` frames.
 * BudgetExtended: budget extend raised a scope's limit; state is the scope's state after.
 */
export interface BudgetExtendedEvent {
    kind: "budget.extended";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    budget?: string;
    limit?: number;
    scope?: string;
    spent?: number;
    state?: string;
    unit?: string;
    [key: string]: unknown;
}
/**
 * The event object of `budget.resumed` frames.
 * BudgetResumed: an extension lifted the agent's budget pause; what waits in its inbox is delivered.
 */
export interface BudgetResumedEvent {
    kind: "budget.resumed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    budget?: string;
    scope?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `budget.warned` frames.
 * BudgetWarned: a turn of the agent brought a budget's scope to its warn_at (docs/usage.md §8.3).
 */
export interface BudgetWarnedEvent {
    kind: "budget.warned";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    budget?: string;
    limit?: number;
    scope?: string;
    spent?: number;
    unit?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.coalesced` frames.
 * LoopCoalesced: a scheduled fire was folded into the pending run run_id.
 */
export interface LoopCoalescedEvent {
    kind: "loop.coalesced";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    due_at?: number;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    loop_uuid?: string;
    run_id?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.created` frames.
 * LoopCreated: a loop was created.
 */
export interface LoopCreatedEvent {
    kind: "loop.created";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    cadence?: string;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    name?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.ended` frames.
 * LoopEnded: the loop ended by itself (a once loop fired or missed its instant).
 */
export interface LoopEndedEvent {
    kind: "loop.ended";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    ended_reason?: string | null;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.fired` frames.
 * LoopFired: a fire made the run run_id (pending when the loop was at capacity).
 */
export interface LoopFiredEvent {
    kind: "loop.fired";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    due_at?: number;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    loop_uuid?: string;
    pending?: boolean;
    run_id?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.paused` frames.
 * LoopPaused: the loop was paused.
 */
export interface LoopPausedEvent {
    kind: "loop.paused";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    ended_reason?: string | null;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.removed` frames.
 * LoopRemoved: the loop was removed (loop.rm).
 */
export interface LoopRemovedEvent {
    kind: "loop.removed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    ended_reason?: string | null;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.resumed` frames.
 * LoopResumed: the loop was resumed.
 */
export interface LoopResumedEvent {
    kind: "loop.resumed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    ended_reason?: string | null;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    status?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop.skipped` frames.
 * LoopSkipped: an occurrence will not run: at capacity with overlap skip, or for reason (docs/loops.md §9.1).
 */
export interface LoopSkippedEvent {
    kind: "loop.skipped";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    due_at?: number;
    loop?: {
        cadence?: string;
        cadence_kind?: string;
        created_at?: number;
        ended_reason?: string | null;
        last_fire_at?: number | null;
        max_concurrency?: number;
        name?: string;
        next_fire_at?: number | null;
        overlap?: string;
        status?: string;
        tz?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    loop_uuid?: string;
    name?: string;
    reason?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.ended` frames.
 * LoopRunEnded: the run finished with status; exit_code and signal are null unless known.
 */
export interface LoopRunEndedEvent {
    kind: "loop_run.ended";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    exit_code?: number | null;
    run?: {
        agents?: number;
        created_at?: number;
        due_at?: number | null;
        ended_at?: number | null;
        exit_code?: number | null;
        kind?: string;
        loop_uuid?: string;
        path?: string;
        pgid?: number | null;
        pid?: number | null;
        run_id?: string;
        signal?: number | null;
        started_at?: number | null;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    run_id?: string;
    run_uuid?: string;
    signal?: number | null;
    status?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.signal_applied` frames.
 * LoopRunSignalApplied: whether the signal was sent (absent when recovery closed it).
 */
export interface LoopRunSignalAppliedEvent {
    kind: "loop_run.signal_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    repaired?: boolean;
    run_uuid?: string;
    sent?: boolean;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.signal_requested` frames.
 * LoopRunSignalRequested: signal is sent to the run's process group pgid.
 */
export interface LoopRunSignalRequestedEvent {
    kind: "loop_run.signal_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    op_id?: string;
    pgid?: number;
    run_uuid?: string;
    signal?: number;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.spawn_applied` frames.
 * LoopRunSpawnApplied: the process group started (pid, pgid) or not.
 */
export interface LoopRunSpawnAppliedEvent {
    kind: "loop_run.spawn_applied";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    error?: string;
    ok?: boolean;
    op_id?: string;
    pgid?: number;
    pid?: number;
    repaired?: boolean;
    run_uuid?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.spawn_requested` frames.
 * LoopRunSpawnRequested: the run's process group is started with argv.
 */
export interface LoopRunSpawnRequestedEvent {
    kind: "loop_run.spawn_requested";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    argv?: string[] | null;
    op_id?: string;
    run_uuid?: string;
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.started` frames.
 * LoopRunStarted: the run's process group started.
 */
export interface LoopRunStartedEvent {
    kind: "loop_run.started";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    pgid?: number;
    pid?: number;
    run?: {
        agents?: number;
        created_at?: number;
        due_at?: number | null;
        ended_at?: number | null;
        exit_code?: number | null;
        kind?: string;
        loop_uuid?: string;
        path?: string;
        pgid?: number | null;
        pid?: number | null;
        run_id?: string;
        signal?: number | null;
        started_at?: number | null;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    run_id?: string;
    run_uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `loop_run.stopping` frames.
 * LoopRunStopping: the run is being stopped; no agent may be created under it any more.
 */
export interface LoopRunStoppingEvent {
    kind: "loop_run.stopping";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    run?: {
        agents?: number;
        created_at?: number;
        due_at?: number | null;
        ended_at?: number | null;
        exit_code?: number | null;
        kind?: string;
        loop_uuid?: string;
        path?: string;
        pgid?: number | null;
        pid?: number | null;
        run_id?: string;
        signal?: number | null;
        started_at?: number | null;
        status?: string;
        uuid?: string;
        [key: string]: unknown;
    };
    run_uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `provider.paused` frames.
 * ProviderPaused: a provider's rate limit paused its queue until until (docs/lifecycle.md §7.6).
 */
export interface ProviderPausedEvent {
    kind: "provider.paused";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /**
     * Account is the login the pause holds (docs/usage.md §7.3); "" holds every
     * account of the provider.
     */
    account?: string;
    /** AgentUUID is the agent whose limit started (or last extended) the pause. */
    agent_uuid?: string;
    /** Message is the screen line that named the limit, when one did. */
    message?: string;
    provider?: string;
    /**
     * Since is when the pause began, Until when the queue promotes the provider's agents
     * again (unix ms).
     */
    since?: number;
    /**
     * Source is how Until was found: reset (read from the limit message), backoff
     * (timings.limit_backoff) or quota (a quota window reached quota.pause_at; Until is
     * its reset, docs/usage.md §7).
     */
    source?: string;
    until?: number;
    [key: string]: unknown;
}
/**
 * The event object of `provider.resumed` frames.
 * ProviderResumed: a provider's pause ended, for reason.
 */
export interface ProviderResumedEvent {
    kind: "provider.resumed";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    account?: string;
    provider?: string;
    reason?: string;
    [key: string]: unknown;
}
/**
 * The event object of `queue.promoted` frames.
 * QueuePromoted: a queued row was admitted (it is starting now).
 */
export interface QueuePromotedEvent {
    kind: "queue.promoted";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    /** The row after the change. */
    agent?: {
        agent?: string | null;
        blocked_kind?: string;
        /**
         * BudgetPaused names the budget that paused the agent at a turn boundary: it stays
         * in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
         */
        budget_paused?: string;
        created_at?: number;
        cwd?: string | null;
        effort?: string | null;
        ended_at?: number;
        /**
         * ExitDetail says in words why the agent ended, when orcr knows more than the
         * exit_reason: a provider that exited or showed nothing during its start, a screen
         * that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
         */
        exit_detail?: string;
        exit_reason?: string;
        herdr_session?: string;
        idle_since?: number;
        last_status_change_at?: number | null;
        managed?: boolean;
        model?: string | null;
        move_state?: string;
        pane_id?: string | null;
        parent_id?: string;
        /** only when parent_id names an agent row */
        parent_path?: string;
        parked_at?: number;
        path?: string;
        /** derived; only when status = queued */
        queue_position?: number;
        /**
         * RoutedFrom is the provider the agent was queued for when routing.fallback promoted
         * it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
         */
        routed_from?: string;
        /**
         * ScreenAt is when orcr read the last screen it kept of the agent's pane, which
         * `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
         */
        screen_at?: number;
        /**
         * Stalled is true while the open turn is marked stalled: working, but neither screen
         * nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
         * Never acted on by orcr; progress clears it.
         */
        stalled?: boolean;
        /** when the turn was marked stalled */
        stalled_at?: number;
        starting_at?: number;
        status?: string;
        /** of the latest turn */
        turn_completed_at?: number;
        /** of the latest turn (highest input_seq) */
        turn_delivered_at?: number;
        /**
         * What the agent's completed turns used, kept on its row as each turn completes
         * (docs/usage.md §4): absent until a turn reported usage.
         */
        usage?: {
            /** The cost of the priced turns in US dollars. */
            cost_usd?: number;
            /** Every token of those turns: input, output, cache reads and cache writes. */
            tokens?: number;
            /** Turns that reported usage. */
            turns?: number;
            /** Turns whose model had no price. */
            unpriced_turns?: number;
            [key: string]: unknown;
        };
        uuid?: string;
        /**
         * The git worktree the agent runs in: only for an agent started with worktree
         * (docs/lifecycle.md §8.4).
         */
        worktree?: {
            /** The branch checked out there. */
            branch?: string;
            /** Whether the worktree is kept when the agent ends (keep_worktree). */
            keep?: boolean;
            /** The worktree's directory: the agent's cwd. */
            path?: string;
            /** The repository's common git directory. */
            repo?: string;
            /**
             * pending (queued, not made yet), creating, ready, removing; once the agent has
             * ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
             * refused the removal) or unused (the agent ended before it was made).
             */
            state?: string;
            [key: string]: unknown;
        };
        [key: string]: unknown;
    };
    uuid?: string;
    [key: string]: unknown;
}
/**
 * The event object of `quota.warned` frames.
 * QuotaWarned: a quota window reached quota.warn_at (docs/usage.md §7): once per window and period, when a report finds it at warn_at or more after one below (or after its reset).
 */
export interface QuotaWarnedEvent {
    kind: "quota.warned";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    account?: string;
    agent_uuid?: string;
    provider?: string;
    resets_at?: number;
    used_percent?: number;
    warn_at?: number;
    window?: string;
    [key: string]: unknown;
}
/** The event object of `server_stopping` frames. */
export interface ServerStoppingEvent {
    kind: "server_stopping";
    /** The uuid of the row the event is about, when it names one. */
    ref_uuid?: string;
    [key: string]: unknown;
}
/** The event object type of each event kind. */
export interface EventPayloads {
    "agent.close_applied": AgentCloseAppliedEvent;
    "agent.close_requested": AgentCloseRequestedEvent;
    "agent.created": AgentCreatedEvent;
    "agent.ended": AgentEndedEvent;
    "agent.input_applied": AgentInputAppliedEvent;
    "agent.input_requested": AgentInputRequestedEvent;
    "agent.location_changed": AgentLocationChangedEvent;
    "agent.move_applied": AgentMoveAppliedEvent;
    "agent.move_requested": AgentMoveRequestedEvent;
    "agent.rerouted": AgentReroutedEvent;
    "agent.response_captured": AgentResponseCapturedEvent;
    "agent.spawn_applied": AgentSpawnAppliedEvent;
    "agent.spawn_requested": AgentSpawnRequestedEvent;
    "agent.stall_cleared": AgentStallClearedEvent;
    "agent.stalled": AgentStalledEvent;
    "agent.status_changed": AgentStatusChangedEvent;
    "agent.turn_completed": AgentTurnCompletedEvent;
    "agent.worktree_add_applied": AgentWorktreeAddAppliedEvent;
    "agent.worktree_add_requested": AgentWorktreeAddRequestedEvent;
    "agent.worktree_remove_applied": AgentWorktreeRemoveAppliedEvent;
    "agent.worktree_remove_requested": AgentWorktreeRemoveRequestedEvent;
    "attach.ended": AttachEndedEvent;
    "attach.started": AttachStartedEvent;
    "budget.exceeded": BudgetExceededEvent;
    "budget.extended": BudgetExtendedEvent;
    "budget.resumed": BudgetResumedEvent;
    "budget.warned": BudgetWarnedEvent;
    "loop.coalesced": LoopCoalescedEvent;
    "loop.created": LoopCreatedEvent;
    "loop.ended": LoopEndedEvent;
    "loop.fired": LoopFiredEvent;
    "loop.paused": LoopPausedEvent;
    "loop.removed": LoopRemovedEvent;
    "loop.resumed": LoopResumedEvent;
    "loop.skipped": LoopSkippedEvent;
    "loop_run.ended": LoopRunEndedEvent;
    "loop_run.signal_applied": LoopRunSignalAppliedEvent;
    "loop_run.signal_requested": LoopRunSignalRequestedEvent;
    "loop_run.spawn_applied": LoopRunSpawnAppliedEvent;
    "loop_run.spawn_requested": LoopRunSpawnRequestedEvent;
    "loop_run.started": LoopRunStartedEvent;
    "loop_run.stopping": LoopRunStoppingEvent;
    "provider.paused": ProviderPausedEvent;
    "provider.resumed": ProviderResumedEvent;
    "queue.promoted": QueuePromotedEvent;
    "quota.warned": QuotaWarnedEvent;
    "server_stopping": ServerStoppingEvent;
}
/** An event object of a stream frame, discriminated by `kind` (narrow with `ev.kind === …`). */
export type OrcrEvent = EventPayloads[keyof EventPayloads];
/** The params type of each method. */
export interface MethodParams {
    "agent.adopt": AgentAdoptParams;
    "agent.ask": AgentAskParams;
    "agent.attach.heartbeat": AgentAttachHeartbeatParams;
    "agent.attach.prepare": AgentAttachPrepareParams;
    "agent.attach.release": AgentAttachReleaseParams;
    "agent.kill": AgentKillParams;
    "agent.logs": AgentLogsParams;
    "agent.ls": AgentLsParams;
    "agent.run": AgentRunParams;
    "agent.send": AgentSendParams;
    "agent.token": AgentTokenParams;
    "agent.wait": AgentWaitParams;
    "api.schema": ApiSchemaParams;
    "api.snapshot": ApiSnapshotParams;
    "budget.extend": BudgetExtendParams;
    "budget.ls": BudgetLsParams;
    "dashboard.login": DashboardLoginParams;
    "events.subscribe": EventsSubscribeParams;
    "fleet.call": FleetCallParams;
    "fleet.events": FleetEventsParams;
    "fleet.members": FleetMembersParams;
    "fleet.token": FleetTokenParams;
    "loop.create": LoopCreateParams;
    "loop.logs": LoopLogsParams;
    "loop.ls": LoopLsParams;
    "loop.pause": LoopPauseParams;
    "loop.resume": LoopResumeParams;
    "loop.rm": LoopRmParams;
    "loop.run.ls": LoopRunLsParams;
    "loop.run.start": LoopRunStartParams;
    "loop.run.stop": LoopRunStopParams;
    "mcp.auth": McpAuthParams;
    "mcp.token": McpTokenParams;
    "provider.check": ProviderCheckParams;
    "provider.ls": ProviderLsParams;
    "quota.record": QuotaRecordParams;
    "server.handshake": ServerHandshakeParams;
    "server.status": ServerStatusParams;
    "server.stop": ServerStopParams;
    "usage.report": UsageReportParams;
    "watch.open": WatchOpenParams;
}
/** What each method's call resolves to: its result, or a Subscription for a stream. */
export interface MethodResults {
    "agent.adopt": AgentAdoptResult;
    "agent.ask": AgentAskResult;
    "agent.attach.heartbeat": AgentAttachHeartbeatResult;
    "agent.attach.prepare": AgentAttachPrepareResult;
    "agent.attach.release": AgentAttachReleaseResult;
    "agent.kill": AgentKillResult;
    "agent.logs": AgentLogsResult;
    "agent.ls": AgentLsResult;
    "agent.run": AgentRunResult;
    "agent.send": AgentSendResult;
    "agent.token": AgentTokenResult;
    "agent.wait": AgentWaitResult;
    "api.schema": ApiSchemaResult;
    "api.snapshot": ApiSnapshotResult;
    "budget.extend": BudgetExtendResult;
    "budget.ls": BudgetLsResult;
    "dashboard.login": DashboardLoginResult;
    "events.subscribe": Subscription<EventsSubscribeResult>;
    "fleet.call": FleetCallResult;
    "fleet.events": FleetEventsResult;
    "fleet.members": FleetMembersResult;
    "fleet.token": FleetTokenResult;
    "loop.create": LoopCreateResult;
    "loop.logs": LoopLogsResult;
    "loop.ls": LoopLsResult;
    "loop.pause": LoopPauseResult;
    "loop.resume": LoopResumeResult;
    "loop.rm": LoopRmResult;
    "loop.run.ls": LoopRunLsResult;
    "loop.run.start": LoopRunStartResult;
    "loop.run.stop": LoopRunStopResult;
    "mcp.auth": McpAuthResult;
    "mcp.token": McpTokenResult;
    "provider.check": ProviderCheckResult;
    "provider.ls": ProviderLsResult;
    "quota.record": QuotaRecordResult;
    "server.handshake": ServerHandshakeResult;
    "server.status": ServerStatusResult;
    "server.stop": ServerStopResult;
    "usage.report": UsageReportResult;
    "watch.open": Subscription<WatchOpenResult>;
}
/**
 * GeneratedClient has one method per socket method, 1:1: raw params in, the raw result
 * out (a Subscription for a stream). It adds no caller identity, resolves no path and
 * never starts a server.
 */
export declare class GeneratedClient {
    readonly transport: MethodTransport;
    constructor(transport: MethodTransport);
    /** call sends any method by name; a streaming method opens its stream. */
    call<M extends ProtocolMethod>(method: M, params?: MethodParams[M]): Promise<MethodResults[M]>;
    call(method: string, params?: object): Promise<unknown>;
    /** turn an unmanaged agent into a managed one, resuming its conversation (`agent.adopt`). */
    agentAdopt(params?: AgentAdoptParams): Promise<AgentAdoptResult>;
    /** run with gc immediate, wait, and return the final response (`agent.ask`). */
    agentAsk(params?: AgentAskParams): Promise<AgentAskResult>;
    /** extend an attach lease (`agent.attach.heartbeat`). */
    agentAttachHeartbeat(params?: AgentAttachHeartbeatParams): Promise<AgentAttachHeartbeatResult>;
    /** take an attach lease and return the herdr attach command (`agent.attach.prepare`). */
    agentAttachPrepare(params?: AgentAttachPrepareParams): Promise<AgentAttachPrepareResult>;
    /** release an attach lease (`agent.attach.release`). */
    agentAttachRelease(params?: AgentAttachReleaseParams): Promise<AgentAttachReleaseResult>;
    /** kill agents by pattern or uuid (`agent.kill`). */
    agentKill(params?: AgentKillParams): Promise<AgentKillResult>;
    /** read an agent's native transcript or last response (`agent.logs`). */
    agentLogs(params?: AgentLogsParams): Promise<AgentLogsResult>;
    /** list agents in tree order (`agent.ls`). */
    agentLs(params?: AgentLsParams): Promise<AgentLsResult>;
    /** enqueue a managed agent at a path (`agent.run`). */
    agentRun(params?: AgentRunParams): Promise<AgentRunResult>;
    /** deliver a prompt to an existing agent (`agent.send`). */
    agentSend(params?: AgentSendParams): Promise<AgentSendResult>;
    /** issue, rotate or revoke an agent's remote stream token (`agent.token`). */
    agentToken(params?: AgentTokenParams): Promise<AgentTokenResult>;
    /** block until every target settles, or with any until one does (`agent.wait`). */
    agentWait(params?: AgentWaitParams): Promise<AgentWaitResult>;
    /** this schema document (`api.schema`). */
    apiSchema(params?: ApiSchemaParams): Promise<ApiSchemaResult>;
    /** consistent snapshot of agents, loops and queue with its event cursor (`api.snapshot`). */
    apiSnapshot(params?: ApiSnapshotParams): Promise<ApiSnapshotResult>;
    /** raise a budget's limit and deliver what its paused agents queued (`budget.extend`). */
    budgetExtend(params?: BudgetExtendParams): Promise<BudgetExtendResult>;
    /** every budget with what it spent, its limit and its state (`budget.ls`). */
    budgetLs(params?: BudgetLsParams): Promise<BudgetLsResult>;
    /** issue a one-time sign-in link for the web dashboard, or sign every browser out (`dashboard.login`). */
    dashboardLogin(params?: DashboardLoginParams): Promise<DashboardLoginResult>;
    /** stream events after since_seq (replay, then live) (`events.subscribe`, streaming). */
    eventsSubscribe(params?: EventsSubscribeParams): Promise<Subscription<EventsSubscribeResult>>;
    /** call a method on a fleet member through this server's fleet connection (`fleet.call`). */
    fleetCall(params?: FleetCallParams): Promise<FleetCallResult>;
    /** every member's events after a cursor per host, from the fleet's stream (`fleet.events`). */
    fleetEvents(params?: FleetEventsParams): Promise<FleetEventsResult>;
    /** the fleet's members: reachable or not, and when each was last seen (`fleet.members`). */
    fleetMembers(params?: FleetMembersParams): Promise<FleetMembersResult>;
    /** issue, rotate or revoke a member's credential on the fleet's hub (`fleet.token`). */
    fleetToken(params?: FleetTokenParams): Promise<FleetTokenResult>;
    /** create a durable cron or one-shot loop for a command (`loop.create`). */
    loopCreate(params?: LoopCreateParams): Promise<LoopCreateResult>;
    /** read a loop's run output and orcr events (`loop.logs`). */
    loopLogs(params?: LoopLogsParams): Promise<LoopLogsResult>;
    /** list loops (`loop.ls`). */
    loopLs(params?: LoopLsParams): Promise<LoopLsResult>;
    /** pause loops (`loop.pause`). */
    loopPause(params?: LoopPauseParams): Promise<LoopPauseResult>;
    /** resume loops (`loop.resume`). */
    loopResume(params?: LoopResumeParams): Promise<LoopResumeResult>;
    /** remove loops, optionally stopping active runs (`loop.rm`). */
    loopRm(params?: LoopRmParams): Promise<LoopRmResult>;
    /** list a loop's runs (`loop.run.ls`). */
    loopRunLs(params?: LoopRunLsParams): Promise<LoopRunLsResult>;
    /** start a manual run of a loop (`loop.run.start`). */
    loopRunStart(params?: LoopRunStartParams): Promise<LoopRunStartResult>;
    /** stop a loop's runs (`loop.run.stop`). */
    loopRunStop(params?: LoopRunStopParams): Promise<LoopRunStopResult>;
    /** check a bearer token presented to orcr mcp --http (`mcp.auth`). */
    mcpAuth(params?: McpAuthParams): Promise<McpAuthResult>;
    /** issue, rotate or revoke the bearer token of orcr mcp --http (`mcp.token`). */
    mcpToken(params?: McpTokenParams): Promise<McpTokenResult>;
    /** check which parts of a provider's contract hold: its command, flags, herdr layer and a real turn (`provider.check`). */
    providerCheck(params?: ProviderCheckParams): Promise<ProviderCheckResult>;
    /** the built-in and declared providers with their support state (`provider.ls`). */
    providerLs(params?: ProviderLsParams): Promise<ProviderLsResult>;
    /** record the quota windows a provider reported outside its transcript (claude's status line) (`quota.record`). */
    quotaRecord(params?: QuotaRecordParams): Promise<QuotaRecordResult>;
    /** readiness probe: pid, protocol and store path (`server.handshake`). */
    serverHandshake(params?: ServerHandshakeParams): Promise<ServerHandshakeResult>;
    /** server health: herdr, integrations, counts, loops, drift (`server.status`). */
    serverStatus(params?: ServerStatusParams): Promise<ServerStatusResult>;
    /** graceful control-plane stop; agent panes are untouched (`server.stop`). */
    serverStop(params?: ServerStopParams): Promise<ServerStopResult>;
    /** tokens and cost of completed turns, grouped by agent, path, provider, model, loop or day (`usage.report`). */
    usageReport(params?: UsageReportParams): Promise<UsageReportResult>;
    /** snapshot plus a pinned subscription under one cursor (`watch.open`, streaming). */
    watchOpen(params?: WatchOpenParams): Promise<Subscription<WatchOpenResult>>;
}

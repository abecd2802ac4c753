// Package herdrtest is an in-process, herdr-compatible session server for tests: a
// stand-in for herdr's protocol-20 socket API (see the herdr docs/herdr.md reference,
// §12 "Fake server") with real PTYs running real child processes.
//
// A [Session] binds herdr's API socket for one session under a config dir C
// (C/herdr.sock for "default", C/sessions/N/herdr.sock for a named one; mode 0600;
// a stale socket is removed, a live one refused) and serves the wire protocol exactly:
// one request line (≤ [MaxRequestBytes], within [FirstLineTimeout]) in, one response
// line out, close; id "" with invalid_request on envelope/params parse failures.
// [Start] builds a [Fixture] with a short temporary config dir for tests.
// [ValidateResponse] and [ValidateRequest] check lines against the embedded
// protocol-20 schema (pass ValidateResponse as [Options].OnResponse to check every
// answer); [ValidateResponseAt] and [ValidateRequestAt] against another fixture of
// package herdrschema. [ListSessions] reproduces `herdr session list`. Fault hooks:
// [Session.Freeze], [Session.Unfreeze], [Session.DropSocket], [Session.Restore].
//
// Implemented methods: ping, session.snapshot, notification.show ({shown:false,
// reason:"disabled"}, herdr's default config; {shown:true, reason:"shown"} with
// [Options].Toasts, each shown one passed to [Options].OnNotify), server.stop,
// workspace.create|list|get|focus|rename|close, tab.create|list|get|focus|rename|close,
// layout.apply, pane.list|get|focus|rename|send_text|send_keys|send_input|read|move|
// close, pane.report_agent|report_agent_session|release_agent|clear_agent_authority,
// agent.list|get. Every other schema method answers internal_error "method X is not
// implemented by the herdr stand-in"; names outside the schema answer
// invalid_request (id ""), as herdr does. Events (events.subscribe, events.wait) and
// long waits (agent.wait, pane.wait_for_output, agent.prompt) are not implemented.
//
// Playing herdr 0.9.x: [Options].Protocol 22 makes ping and session.snapshot report
// protocol 22, and [Options].CompletionSeq adds completion_seq to agent rows, counting
// the pane's working/blocked → idle edges (docs/herdr.md §4.2). Both are off by
// default; the protocol-22 schema fixture they match is orcr's own construction, not
// herdr's published file (herdrschema's README).
//
// Agent status follows docs/herdr.md §5: pane.report_agent from a custom source makes
// the pane an agent pane with the reported state; official session-only sources
// (herdr:claude, herdr:codex, …) never change the state and are the only ones whose
// session ids become agent_session; idle reads as done until the pane's tab is
// focused, unless the working/blocked → idle transition happened in the visible tab.
//
// Detection (docs/herdr.md §5.2, written from herdr 0.8.2's): every pane is watched on
// a 300 ms tick. A probe of its foreground process group in /proc names claude or codex
// ([DetectAgentScreen] has rules for those two only; other agents are not detected): the
// pane becomes that agent's, unknown for a 3 s startup grace, and then its screen rules
// — applied to the pane's detection text, the title and the OSC 9 payload the program
// set — decide idle, working or blocked. A working → idle change without visible
// evidence waits for three more sightings or 700 ms; a visible blocker is republished
// every 800 ms. A custom reporter's state wins over the screen's, except that a visible
// blocker of the same agent seen after the report reads blocked; a report naming
// another known agent than the detected one is ignored. When the agent leaves and the
// pane's own program is in front again, the pane reads idle, then plain.
// [Options].NoDetection turns detection off. [Session.SetAgentStatus] and
// [Session.SetAgentSession] set a pane's state directly, for tests that run no real CLI.
//
// Panes are as big as herdr makes them without a client ([Options].Size): the headless
// area (120×40, or 80×24 playing protocol 16) less the 26-column sidebar and the tab
// bar's row, 94×39 (54×23); a pane started in a server with no pane one column less
// (herdr starts it at the whole area and then resizes it: the stand-in starts it at the
// end size); every pane, a split's halves too, keeps its size (herdr/testdata/live).
//
// Pane output goes through the package's own VT emulator (text only, 10 000
// scrollback rows; cursor movement, erase, insert/delete, scroll regions, alternate
// screen, DSR/DA replies, bracketed-paste and application-cursor modes, OSC titles).
//
// Stand-in choices that only a real herdr can confirm:
//   - pane.read: visible, recent and detection end every row with "\n", visible without
//     trailing blank rows; format "ansi" ends rows with "\r\n" (the last with none);
//     wide characters take two cells (all confirmed by herdr 0.8.2 and 0.7.2,
//     herdr/testdata/live). Colours are not kept, and blanks a program wrote at a row's
//     end cannot be told from empty cells (unchecked: the mock draws neither).
//   - Error messages other than "pane X not found", "unsupported key X" and the
//     "invalid request: " prefix are the stand-in's own wording.
//   - A request line ended by EOF instead of "\n" is answered.
//   - A pane's status starts seen; unknown → idle stays idle (not done).
//   - pane.release_agent / clear_agent_authority clear the agent label, status and
//     agent_session when the releasing source is the one that set them.
//   - A session-only official report on a pane with no agent label sets the label
//     (before the first probe, or for an agent the stand-in does not detect); on a
//     pane labelled with another agent it is ignored. herdr 0.8.2 does not label
//     the pane, takes only its own agents' sources (never herdr:mock, which the
//     stand-in takes) and, but for pi and omp, only a session id, never a path
//     (docs/herdr.md §12, still open).
//   - Detection: the rule set (herdr 0.8.2's bundled rules; a real herdr fetches newer
//     ones from herdr.dev, and 0.8.0's predate claude 2.1.228's spinner), the probe pace (500 ms in a pane's first 8 s, 5 s once an agent is
//     found, 2 s on a changing screen after that), finding a job's members through
//     /proc/<pid>/task/*/children from the pane's process, the emulator the rules read
//     (see pane.read above), and how release and detection combine: a release leaves
//     a detected agent's pane with the screen's state and a session another source
//     reported.
//   - pane.move's focused_pane_id is the target tab's focused pane (the layout's area,
//     rectangles and root split id are herdr's, herdr/testdata/live; deeper split ids
//     follow herdr's source: split_<n>_<0/1 path>).
//   - An attached terminal does not resize the pane (herdr's source resizes it to the
//     terminal that attaches).
//   - layout.apply without workspace_id and with no active workspace answers
//     workspace_not_found "no active workspace"; the stand-in's limits are 16 panes
//     and depth 8; an argv that cannot be started answers layout_apply_failed.
//   - Removing the active workspace activates its neighbour without marking panes seen.
//   - Legacy id spellings (w_1, p_<ws>_<n>, …) are not accepted.
//   - Pane processes are killed with SIGHUP to their process group, then SIGKILL
//     after one second.
//   - notification.show with Toasts: every notification is shown (herdr may also answer
//     rate_limited, busy or no_foreground_client; the stand-in never does); the body is
//     cut to 240 characters like the title to 80.
//   - completion_seq (with CompletionSeq): starts at 0 for every pane, counts only
//     working → idle and blocked → idle (idle or done; never from unknown), stays with
//     the pane across moves, and is written on every agent row, like state_change_seq.
package herdrtest

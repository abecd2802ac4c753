package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// DefaultDeliverPause is the pause between typing a prompt and pressing Enter
// (docs/config.md §1.8).
const DefaultDeliverPause = time.Second

// Remote is the typed, stateless socket API of one herdr session: each method is one
// (or, for chunked text, a few) [Client.Call]. It sends exactly the params of
// [Contract] and decodes results leniently. Remote is safe for concurrent use.
type Remote struct {
	Client Client
}

// NewRemote returns a Remote for the API socket at socket.
func NewRemote(socket string) *Remote { return &Remote{Client: Client{Socket: socket}} }

func (r *Remote) call(ctx context.Context, method string, params any, out any) error {
	if _, ok := ContractOp(method); !ok {
		return fmt.Errorf("herdr: %s is not in orcr's contract", method)
	}
	resp, _, err := r.Client.exchange(ctx, method, params)
	if err != nil {
		return err
	}
	return decodeResult(method, resp, out)
}

// decodeResult checks herdr's answer line resp to method (a contract method) and
// decodes its result into out (nil: checked only).
func decodeResult(method string, resp []byte, out any) error {
	op, _ := ContractOp(method)
	raw, err := DecodeResponse(method, resp, op.Tag)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return badResponse(method, "result does not decode: "+err.Error())
	}
	return nil
}

// Ping calls ping and returns herdr's version and protocol.
func (r *Remote) Ping(ctx context.Context) (Pong, error) {
	var p Pong
	err := r.call(ctx, MethodPing, nil, &p)
	return p, err
}

// Handshake pings and checks the protocol: below [MinProtocol] is an
// environment_error cause herdr_version_skew with details {cause,
// reported_protocol, required_protocol, herdr_version}.
func (r *Remote) Handshake(ctx context.Context) (Pong, error) {
	p, err := r.Ping(ctx)
	if err != nil {
		return p, err
	}
	return p, CheckProtocol(p)
}

// CheckProtocol applies the handshake rule to a pong.
func CheckProtocol(p Pong) error {
	if p.Protocol >= MinProtocol {
		return nil
	}
	return wire.Env(wire.CauseHerdrVersionSkew,
		fmt.Sprintf("herdr %s speaks protocol %d; orcr needs protocol %d or newer", p.Version, p.Protocol, MinProtocol),
		"reported_protocol", p.Protocol, "required_protocol", MinProtocol, "herdr_version", p.Version)
}

// WorkspaceList lists the session's workspaces.
func (r *Remote) WorkspaceList(ctx context.Context) ([]WorkspaceInfo, error) {
	var res struct {
		Workspaces []WorkspaceInfo `json:"workspaces"`
	}
	err := r.call(ctx, MethodWorkspaceList, nil, &res)
	for i := range res.Workspaces {
		res.Workspaces[i].AgentStatus = res.Workspaces[i].AgentStatus.Normalise()
	}
	return res.Workspaces, err
}

// WorkspaceCreated is the result of workspace.create: the workspace and its root
// shell pane (which orcr closes once the agent pane exists).
type WorkspaceCreated struct {
	Workspace WorkspaceInfo `json:"workspace"`
	Tab       struct {
		TabID string `json:"tab_id"`
	} `json:"tab"`
	RootPane PaneInfo `json:"root_pane"`
}

// WorkspaceCreate creates an unfocused workspace labelled label (cwd optional).
func (r *Remote) WorkspaceCreate(ctx context.Context, label, cwd string) (WorkspaceCreated, error) {
	params := map[string]any{"label": label, "focus": false}
	if cwd != "" {
		params["cwd"] = cwd
	}
	var res WorkspaceCreated
	err := r.call(ctx, MethodWorkspaceCreate, params, &res)
	return res, err
}

// LayoutApply creates a new tab labelled tabLabel in workspaceID holding one pane that
// runs argv directly (docs/herdr.md §6.2) and returns the new tab and pane ids.
// herdr does not return the terminal id; follow with [Remote.PaneGet].
func (r *Remote) LayoutApply(ctx context.Context, workspaceID, tabLabel string, argv []string, cwd, label string, env map[string]string) (tabID, paneID string, err error) {
	node := map[string]any{"type": "pane", "command": argv, "label": label}
	if cwd != "" {
		node["cwd"] = cwd
	}
	if len(env) > 0 {
		node["env"] = env
	}
	params := map[string]any{"workspace_id": workspaceID, "tab_label": tabLabel, "focus": false, "root": node}
	var res struct {
		Layout struct {
			WorkspaceID string `json:"workspace_id"`
			TabID       string `json:"tab_id"`
			Root        struct {
				Type   string `json:"type"`
				PaneID string `json:"pane_id"`
			} `json:"root"`
		} `json:"layout"`
	}
	if err := r.call(ctx, MethodLayoutApply, params, &res); err != nil {
		return "", "", err
	}
	if res.Layout.Root.PaneID == "" {
		return "", "", badResponse(MethodLayoutApply, "layout.root carries no pane_id")
	}
	return res.Layout.TabID, res.Layout.Root.PaneID, nil
}

// PaneGet returns one pane (old pane ids still resolve after a move).
func (r *Remote) PaneGet(ctx context.Context, paneID string) (PaneInfo, error) {
	var res struct {
		Pane PaneInfo `json:"pane"`
	}
	err := r.call(ctx, MethodPaneGet, map[string]any{"pane_id": paneID}, &res)
	res.Pane.AgentStatus = res.Pane.AgentStatus.Normalise()
	return res.Pane, err
}

// PaneList lists panes, of one workspace when workspaceID is not empty.
func (r *Remote) PaneList(ctx context.Context, workspaceID string) ([]PaneInfo, error) {
	params := map[string]any{}
	if workspaceID != "" {
		params["workspace_id"] = workspaceID
	}
	var res struct {
		Panes []PaneInfo `json:"panes"`
	}
	err := r.call(ctx, MethodPaneList, params, &res)
	normalisePanes(res.Panes)
	return res.Panes, err
}

// SendText writes text to the pane as is (no Enter), split into several
// pane.send_text calls on rune boundaries so no request exceeds [MaxRequest]
// (docs/herdr.md §13.14).
func (r *Remote) SendText(ctx context.Context, paneID, text string) error {
	for _, chunk := range chunkText(text, sendTextBudget(paneID)) {
		if err := r.sendTextCall(ctx, paneID, chunk); err != nil {
			return err
		}
	}
	return nil
}

func (r *Remote) sendTextCall(ctx context.Context, paneID, text string) error {
	return r.call(ctx, MethodPaneSendText, map[string]any{"pane_id": paneID, "text": text}, nil)
}

// SendKeys sends named keys (["Enter"], ["Escape"], ["C-c"], …).
func (r *Remote) SendKeys(ctx context.Context, paneID string, keys ...string) error {
	if keys == nil {
		keys = []string{}
	}
	return r.call(ctx, MethodPaneSendKeys, map[string]any{"pane_id": paneID, "keys": keys}, nil)
}

// Read reads the pane's text (ANSI stripped); lines <= 0 means the whole source.
func (r *Remote) Read(ctx context.Context, paneID, source string, lines int) (PaneRead, error) {
	if source == "" {
		source = ReadVisible
	}
	params := map[string]any{"pane_id": paneID, "source": source, "format": "text", "strip_ansi": true}
	if lines > 0 {
		params["lines"] = lines
	}
	var res struct {
		Read PaneRead `json:"read"`
	}
	err := r.call(ctx, MethodPaneRead, params, &res)
	return res.Read, err
}

// MoveToNewTab moves the pane into a new tab labelled label in workspaceID, without
// focus. The terminal keeps its id; a cross-workspace move gives the pane a new id.
func (r *Remote) MoveToNewTab(ctx context.Context, paneID, workspaceID, label string) (MoveResult, error) {
	params := map[string]any{"pane_id": paneID, "focus": false,
		"destination": map[string]any{"type": "new_tab", "workspace_id": workspaceID, "label": label}}
	var res struct {
		MoveResult struct {
			Changed           bool     `json:"changed"`
			Reason            string   `json:"reason"`
			PreviousPaneID    string   `json:"previous_pane_id"`
			ClosedWorkspaceID string   `json:"closed_workspace_id"`
			Pane              PaneInfo `json:"pane"`
		} `json:"move_result"`
	}
	if err := r.call(ctx, MethodPaneMove, params, &res); err != nil {
		return MoveResult{}, err
	}
	m := res.MoveResult
	return MoveResult{
		Placement: Placement{WorkspaceID: m.Pane.WorkspaceID, TabID: m.Pane.TabID,
			PaneID: m.Pane.PaneID, TerminalID: m.Pane.TerminalID},
		Changed: m.Changed, Reason: m.Reason, PreviousPaneID: m.PreviousPaneID,
		ClosedWorkspaceID: m.ClosedWorkspaceID,
	}, nil
}

// Close kills the pane's process and removes the pane.
func (r *Remote) Close(ctx context.Context, paneID string) error {
	return r.call(ctx, MethodPaneClose, map[string]any{"pane_id": paneID}, nil)
}

// Rename sets the pane's label.
func (r *Remote) Rename(ctx context.Context, paneID, label string) error {
	return r.call(ctx, MethodPaneRename, map[string]any{"pane_id": paneID, "label": label}, nil)
}

// AgentList lists the panes that host an agent, statuses normalised.
func (r *Remote) AgentList(ctx context.Context) ([]AgentInfo, error) {
	var res agentListResult
	err := r.call(ctx, MethodAgentList, nil, &res)
	return res.normalised(), err
}

// agentListResult is agent.list's result.
type agentListResult struct {
	Agents []AgentInfo `json:"agents"`
}

// normalised returns the rows with done read as idle.
func (res agentListResult) normalised() []AgentInfo {
	for i := range res.Agents {
		res.Agents[i].AgentStatus = res.Agents[i].AgentStatus.Normalise()
	}
	return res.Agents
}

// agentListCache is a session connection's last agent.list answer. At rest herdr
// answers the same bytes poll after poll, and decoding a thousand rows is most of what
// an idle server does (docs/herdr.md §11): an answer equal to the last one but for its
// id is not decoded again, nor copied for a caller that still has its rows.
type agentListCache struct {
	mu     sync.Mutex
	key    []byte // the last answer, its id taken out
	gen    uint64 // the last answer's generation (listGens), 0 before the first
	agents []AgentInfo
}

// listGens numbers the distinct agent.list answers of every connection of the process,
// so that a generation a caller kept from one connection is never another's.
var listGens atomic.Uint64

// agentListSince is AgentList through cache (nil: none) for a caller that keeps the rows
// it was given with their generation: an answer of generation seen (not 0) comes back
// as no rows and seen, nothing decoded or copied. Any other answer comes back as the
// caller's own rows (their pointer fields shared with the cache, not to be written) and
// their generation (0 without a cache).
func (r *Remote) agentListSince(ctx context.Context, cache *agentListCache, seen uint64) ([]AgentInfo, uint64, error) {
	if cache == nil {
		list, err := r.AgentList(ctx)
		return list, 0, err
	}
	resp, id, err := r.Client.exchange(ctx, MethodAgentList, nil)
	if err != nil {
		return nil, 0, err
	}
	cache.mu.Lock()
	if cache.gen != 0 && sameButID(resp, id, cache.key) {
		gen := cache.gen
		var list []AgentInfo
		if gen != seen {
			list = slices.Clone(cache.agents)
		}
		cache.mu.Unlock()
		return list, gen, nil
	}
	cache.mu.Unlock()
	var res agentListResult
	if err := decodeResult(MethodAgentList, resp, &res); err != nil {
		return nil, 0, err
	}
	agents := res.normalised()
	key := withoutID(resp, id)
	gen := uint64(0)
	if key != nil {
		gen = listGens.Add(1)
	}
	cache.mu.Lock()
	cache.key, cache.gen, cache.agents = key, gen, agents
	cache.mu.Unlock()
	return slices.Clone(agents), gen, nil
}

// idMember is the member "id":"<id>" as herdr writes it (compact).
func idMember(id string) string { return `"id":"` + id + `"` }

// sameButID reports whether resp without its id member is key (withoutID's result),
// without building it. An id inside a string value is escaped, so the member found is
// the envelope's.
func sameButID(resp []byte, id string, key []byte) bool {
	member := idMember(id)
	i := bytes.Index(resp, []byte(member))
	if i < 0 || len(resp)-len(member) != len(key) {
		return false
	}
	return bytes.Equal(resp[:i], key[:i]) && bytes.Equal(resp[i+len(member):], key[i:])
}

// withoutID returns resp with the member "id":"<id>" taken out, or nil when it is not
// there as herdr writes it (compact).
func withoutID(resp []byte, id string) []byte {
	member := idMember(id)
	i := bytes.Index(resp, []byte(member))
	if i < 0 {
		return nil
	}
	out := make([]byte, 0, len(resp)-len(member))
	return append(append(out, resp[:i]...), resp[i+len(member):]...)
}

// Notify shows a toast (herdr's default config answers shown:false, disabled).
func (r *Remote) Notify(ctx context.Context, title, body string) (Notification, error) {
	params := map[string]any{"title": title}
	if body != "" {
		params["body"] = body
	}
	var res Notification
	err := r.call(ctx, MethodNotify, params, &res)
	return res, err
}

// ReportAgent reports an agent state for a pane from a custom source (what orcr's
// mock agent does).
func (r *Remote) ReportAgent(ctx context.Context, paneID, source, agent, state, message string) error {
	params := map[string]any{"pane_id": paneID, "source": source, "agent": agent, "state": state}
	if message != "" {
		params["message"] = message
	}
	return r.call(ctx, MethodReportAgent, params, nil)
}

// ResolvePane turns a terminal id (term_…) into its current pane (via pane.list);
// anything else is taken as a pane id and fetched with pane.get. A terminal id that
// no pane holds is a herdr [*Error] with code pane_not_found.
func (r *Remote) ResolvePane(ctx context.Context, target string) (PaneInfo, error) {
	if !isTerminalID(target) {
		return r.PaneGet(ctx, target)
	}
	panes, err := r.PaneList(ctx, "")
	if err != nil {
		return PaneInfo{}, err
	}
	for _, p := range panes {
		if p.TerminalID == target {
			return p, nil
		}
	}
	return PaneInfo{}, &Error{Code: "pane_not_found", Message: "no pane holds terminal " + target, Method: MethodPaneList}
}

// Deliver is orcr's two-call input: the text (chunked), a pause, then Enter. target is
// a terminal id or a pane id. The pause is cut short (with ctx's error) when ctx ends.
// [Remote.Submit] adds bracketed paste and the clearing of the input box.
func (r *Remote) Deliver(ctx context.Context, target, text string, pause time.Duration) error {
	return r.Submit(ctx, target, Submission{Text: text, Pause: pause})
}

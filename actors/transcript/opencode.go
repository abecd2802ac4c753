package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// --- opencode (docs/providers.md §6.9.4) ---

// OpencodeExportFile is the name, in the agent's data dir, of the file [OpencodeExport]
// keeps opencode's export in: the transcript's locator ([Locator.DataDirFile]).
const OpencodeExportFile = "opencode-export.json"

// opencodeDoc is the part of `opencode export <id>`'s JSON this package reads.
type opencodeDoc struct {
	Messages []struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"messages"`
}

// opencodeInfo is a message's info.
type opencodeInfo struct {
	Role    json.RawMessage `json:"role"`
	ModelID json.RawMessage `json:"modelID"`
	Tokens  json.RawMessage `json:"tokens"`
	Finish  json.RawMessage `json:"finish"`
	Error   json.RawMessage `json:"error"`
	Time    *struct {
		Created   json.RawMessage `json:"created"`
		Completed json.RawMessage `json:"completed"`
	} `json:"time"`
}

// opencodeTokens is an assistant message's tokens.
type opencodeTokens struct {
	Input     json.RawMessage `json:"input"`
	Output    json.RawMessage `json:"output"`
	Reasoning json.RawMessage `json:"reasoning"`
	Cache     *struct {
		Read  json.RawMessage `json:"read"`
		Write json.RawMessage `json:"write"`
	} `json:"cache"`
}

// opencodePart is a message part: text, reasoning, tool, step-start, step-finish, …
type opencodePart struct {
	Type   json.RawMessage `json:"type"`
	Text   json.RawMessage `json:"text"`
	Tool   json.RawMessage `json:"tool"`
	CallID json.RawMessage `json:"callID"`
	State  *struct {
		Status json.RawMessage `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	} `json:"state"`
}

// opencodeMessage is one decoded message.
type opencodeMessage struct {
	info  opencodeInfo
	role  string
	parts []opencodePart
}

// opencodeMessages decodes the export's messages; nil when data is not the export's
// shape. A message without a string role is skipped.
func opencodeMessages(data []byte) []opencodeMessage {
	var d opencodeDoc
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &d) != nil {
		return nil
	}
	var out []opencodeMessage
	for _, m := range d.Messages {
		var om opencodeMessage
		if !object(m.Info, &om.info) {
			continue
		}
		if om.role = stringOf(om.info.Role); om.role == "" {
			continue
		}
		for _, raw := range m.Parts {
			var p opencodePart
			if object(raw, &p) {
				om.parts = append(om.parts, p)
			}
		}
		out = append(out, om)
	}
	return out
}

// opencodeToolResult is a tool part's result: its output when completed, its error
// (not ok) when it failed; done false while it is pending or running.
func opencodeToolResult(p opencodePart) (text string, ok, done bool) {
	if p.State == nil {
		return "", false, false
	}
	switch stringOf(p.State.Status) {
	case "completed":
		return stringOf(p.State.Output), true, true
	case "error":
		return stringOf(p.State.Error), false, true
	}
	return "", false, false
}

// parseOpencode: text parts are entries of their message's role, reasoning parts
// thinking, a tool part a tool_use and, once completed or failed, a tool tool_result;
// step-start and step-finish parts are bookkeeping and skipped, any other part is
// other. Assistant entries carry the message's input and output tokens.
func parseOpencode(data []byte) []Entry {
	var out []Entry
	for _, m := range opencodeMessages(data) {
		base := Entry{Role: m.role}
		var tk opencodeTokens
		if m.role == RoleAssistant && object(m.info.Tokens, &tk) {
			base.InputTokens, base.OutputTokens = jsonInt(tk.Input), jsonInt(tk.Output)
		}
		for _, p := range m.parts {
			e := base
			switch stringOf(p.Type) {
			case "step-start", "step-finish":
				continue
			case "text":
				e.Kind, e.Text = KindText, stringOf(p.Text)
			case "reasoning":
				e.Kind, e.Text = KindThinking, stringOf(p.Text)
			case "tool":
				e.Kind, e.Tool = KindToolUse, stringOf(p.Tool)
				copyTokens(&e)
				out = append(out, e)
				if text, _, done := opencodeToolResult(p); done {
					out = append(out, Entry{Role: RoleTool, Kind: KindToolResult, Text: text})
				}
				continue
			default:
				e.Kind = KindOther
			}
			copyTokens(&e)
			out = append(out, e)
		}
	}
	return out
}

// opencodeTools: a tool part with a callID is a call (tool, state.input) and, once
// completed or failed, its result (not ok when failed).
func opencodeTools(data []byte) []ToolEvent {
	var out []ToolEvent
	for _, m := range opencodeMessages(data) {
		for _, p := range m.parts {
			id := stringOf(p.CallID)
			if stringOf(p.Type) != "tool" || id == "" {
				continue
			}
			ev := ToolEvent{Kind: ToolCall, CallID: id, Name: stringOf(p.Tool)}
			if p.State != nil {
				ev.Args = compactJSON(p.State.Input)
			}
			out = append(out, ev)
			if text, ok, done := opencodeToolResult(p); done {
				out = append(out, ToolEvent{Kind: ToolResult, CallID: id, OK: ok, Text: text})
			}
		}
	}
	return out
}

// opencodeIsPrompt reports whether m is a user message with a text that is not blank.
func opencodeIsPrompt(m opencodeMessage) bool {
	if m.role != RoleUser {
		return false
	}
	for _, p := range m.parts {
		if stringOf(p.Type) == "text" && !isBlank(stringOf(p.Text)) {
			return true
		}
	}
	return false
}

// opencodeTurnUsage sums the tokens of the assistant messages after the last prompt as
// opencode reports them: input without the cache, cache read and write apart, output
// without the reasoning and reasoning apart (measured: the stand-in's 10 output tokens
// of which 5 reasoning read output 5, reasoning 5), so the output here adds the
// reasoning back, counted inside it as codex's is. The model is the last message's
// modelID. Only completed messages count: one still open (opencode retrying a 429
// writes an assistant message of zero tokens and no time.completed) has reported
// nothing yet.
func opencodeTurnUsage(data []byte) (Usage, bool) {
	var u Usage
	any := false
	for _, m := range opencodeMessages(data) {
		var tk opencodeTokens
		switch {
		case opencodeIsPrompt(m):
			u, any = Usage{}, false
		case m.role == RoleAssistant && m.info.Time != nil && jsonInt(m.info.Time.Completed) != nil && object(m.info.Tokens, &tk):
			any = true
			u.Input += int64Of(tk.Input)
			u.Output += int64Of(tk.Output) + int64Of(tk.Reasoning)
			u.Reasoning += int64Of(tk.Reasoning)
			if tk.Cache != nil {
				u.CacheRead += int64Of(tk.Cache.Read)
				u.CacheWrite += int64Of(tk.Cache.Write)
			}
			if model := stringOf(m.info.ModelID); model != "" {
				u.Model = model
			}
		}
	}
	return u, any
}

// opencodeLimit: an assistant message whose info.error (data.message, else message)
// names a limit, after the last prompt and answer. opencode 1.18.33 retries a 429 on
// screen ("The usage limit has been reached [retrying in …]") without writing it — its
// export then holds an assistant message with no time.completed and zero tokens — so
// this reads the error it would record on giving up.
func opencodeLimit(data []byte) (string, bool) {
	notice := ""
	for _, m := range opencodeMessages(data) {
		switch {
		case opencodeIsPrompt(m):
			notice = ""
		case m.role == RoleAssistant:
			var e struct {
				Message json.RawMessage `json:"message"`
				Data    *struct {
					Message json.RawMessage `json:"message"`
				} `json:"data"`
			}
			msg := ""
			if object(m.info.Error, &e) {
				msg = stringOf(e.Message)
				if e.Data != nil && stringOf(e.Data.Message) != "" {
					msg = stringOf(e.Data.Message)
				}
			}
			if namesLimit(msg) {
				notice = msg
			} else if slicesHasText(m.parts) {
				notice = ""
			}
		}
	}
	return notice, notice != ""
}

// slicesHasText reports whether parts hold a text part that is not blank.
func slicesHasText(parts []opencodePart) bool {
	for _, p := range parts {
		if stringOf(p.Type) == "text" && !isBlank(stringOf(p.Text)) {
			return true
		}
	}
	return false
}

// OpencodeTurnOpen reports whether the export's last assistant message is still being
// written: it has no time.completed, or it finished asking for tool calls. The
// completion's settled check for opencode (docs/providers.md §6.9.4) adds it to §6.4's.
func OpencodeTurnOpen(data []byte) bool {
	ms := opencodeMessages(data)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if m.role == RoleUser {
			return opencodeIsPrompt(m) // a prompt not answered yet
		}
		if m.role != RoleAssistant {
			continue
		}
		if m.info.Time == nil || jsonInt(m.info.Time.Completed) == nil {
			return true
		}
		return stringOf(m.info.Finish) == "tool-calls"
	}
	return false
}

// OpencodeExportTimeout bounds one `opencode export` run.
const OpencodeExportTimeout = 30 * time.Second

// OpencodeExport runs `<bin> export <session>` in env (the agent's environment, so
// opencode finds its own database under HOME or XDG_DATA_HOME) and keeps its output in
// <dataDir>/[OpencodeExportFile] (dataDir made when missing), rewriting the file only when the export changed, so
// the file's mtime is when the session last changed as far as orcr has looked: the
// cursor, settled and freshness checks of §6.3–§6.5 then hold for opencode as for a
// file the CLI writes. A failed export removes the file (orcr keeps no copy to fall
// back on, §6.5) and is transcript_unavailable read_error (opencode prints an unknown
// session's error on stderr, which the message carries). It returns the file's path.
func OpencodeExport(ctx context.Context, bin string, env []string, session, dataDir string) (string, error) {
	path := filepath.Join(dataDir, OpencodeExportFile)
	if !validID(session) || session[0] == '-' {
		os.Remove(path)
		return "", Unavailable(wire.CauseNotFound, fmt.Sprintf("session id %q names no opencode session", session))
	}
	ctx, cancel := context.WithTimeout(ctx, OpencodeExportTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "export", session)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil && !json.Valid(out) {
		err = errors.New("its output is not JSON")
	}
	if err != nil {
		os.Remove(path)
		msg := fmt.Sprintf("opencode export %s failed: %v: %s", session, err, bytes.TrimSpace(stderr.Bytes()))
		return "", Unavailable(wire.CauseReadError, msg).Wrap(err)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, out) {
		return path, nil
	}
	// An unmanaged agent has no data dir until its first export (docs/providers.md §12.4).
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", Unavailable(wire.CauseReadError, "cannot keep opencode's export: "+err.Error()).Wrap(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return "", Unavailable(wire.CauseReadError, "cannot keep opencode's export: "+err.Error()).Wrap(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", Unavailable(wire.CauseReadError, "cannot keep opencode's export: "+err.Error()).Wrap(err)
	}
	return path, nil
}

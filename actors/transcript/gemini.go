package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// --- gemini (docs/providers.md §6.9.3) ---

// geminiRecord is the part of a gemini chat record this package reads.
type geminiRecord struct {
	ID        json.RawMessage `json:"id"`
	Timestamp json.RawMessage `json:"timestamp"`
	Type      json.RawMessage `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  json.RawMessage `json:"thoughts"`
	Tokens    json.RawMessage `json:"tokens"`
	Model     json.RawMessage `json:"model"`
	ToolCalls json.RawMessage `json:"toolCalls"`
}

// geminiToolCall is one of a gemini record's toolCalls.
type geminiToolCall struct {
	ID            json.RawMessage `json:"id"`
	Name          json.RawMessage `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        json.RawMessage `json:"status"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// geminiTokens is a gemini record's tokens: the Gemini usageMetadata renamed.
type geminiTokens struct {
	Input    json.RawMessage `json:"input"`
	Output   json.RawMessage `json:"output"`
	Cached   json.RawMessage `json:"cached"`
	Thoughts json.RawMessage `json:"thoughts"`
}

// geminiSessionContext starts the user message gemini-cli writes itself before the
// first prompt (the workspace it shows the model).
const geminiSessionContext = "<session_context>"

// geminiDoc replays a gemini chat file: a header line (sessionId, startTime, …), then
// records appended in order, a record repeating an earlier id replacing it (gemini
// writes its answer once, then again with its toolCalls), and {"$set": …} patch lines
// whose "messages" replaces the whole list (a resumed session writes the history so).
// It returns the records in order and the session id (the header's or the last $set's).
func geminiDoc(data []byte) (recs []geminiRecord, session string) {
	at := map[string]int{}
	jsonLines(data, func(line []byte) {
		var l struct {
			Set       json.RawMessage `json:"$set"`
			SessionID json.RawMessage `json:"sessionId"`
		}
		if json.Unmarshal(line, &l) != nil {
			return
		}
		if s := stringOf(l.SessionID); s != "" {
			session = s
		}
		if len(l.Set) > 0 {
			var set struct {
				Messages  json.RawMessage `json:"messages"`
				SessionID json.RawMessage `json:"sessionId"`
			}
			if !object(l.Set, &set) {
				return
			}
			if s := stringOf(set.SessionID); s != "" {
				session = s
			}
			if set.Messages != nil && set.Messages[0] == '[' {
				recs, at = nil, map[string]int{}
				for _, raw := range array(set.Messages) {
					recs = geminiPut(recs, at, raw)
				}
			}
			return
		}
		recs = geminiPut(recs, at, line)
	})
	return recs, session
}

// geminiPut appends the record raw to recs, or replaces the one with its id.
func geminiPut(recs []geminiRecord, at map[string]int, raw []byte) []geminiRecord {
	var r geminiRecord
	if !object(raw, &r) || stringOf(r.Type) == "" {
		return recs
	}
	id := stringOf(r.ID)
	if i, ok := at[id]; ok && id != "" {
		recs[i] = r
		return recs
	}
	if id != "" {
		at[id] = len(recs)
	}
	return append(recs, r)
}

// geminiContent is a record's content as parts: a string is one text part.
func geminiContent(raw json.RawMessage) []geminiPart {
	if s, ok := jsonString(raw); ok {
		if s == "" {
			return nil
		}
		return []geminiPart{{Text: raw}}
	}
	return decodeParts(raw)
}

// geminiCalls is a record's toolCalls.
func geminiCalls(r geminiRecord) []geminiToolCall {
	var out []geminiToolCall
	for _, raw := range array(r.ToolCalls) {
		var c geminiToolCall
		if object(raw, &c) {
			out = append(out, c)
		}
	}
	return out
}

// geminiResult is a tool call's result text and whether it has one yet: the output of
// its functionResponse, else its resultDisplay when that is a string. A call whose
// status is success, error or cancelled has a result.
func geminiResult(c geminiToolCall) (text string, ok, done bool) {
	status := stringOf(c.Status)
	switch status {
	case "success", "error", "cancelled":
	default:
		return "", false, false
	}
	for _, p := range decodeParts(c.Result) {
		var fr geminiCall
		if object(p.FunctionResponse, &fr) {
			text = responseText(fr.Response)
			break
		}
	}
	if text == "" {
		text = stringOf(c.ResultDisplay)
	}
	return text, status == "success", true
}

// geminiIsPrompt reports whether r is a user prompt: a user record with a text that is
// not blank and not gemini-cli's session context.
func geminiIsPrompt(r geminiRecord) bool {
	if stringOf(r.Type) != RoleUser {
		return false
	}
	for _, p := range geminiContent(r.Content) {
		if s := stringOf(p.Text); !isBlank(s) && !strings.HasPrefix(s, geminiSessionContext) {
			return true
		}
	}
	return false
}

// parseGemini: user texts are user entries (gemini-cli's session context a system
// entry; function responses are read from the calls instead), a gemini record its
// thoughts (thinking), its text and, per tool call, a tool_use and — once the call has
// a status — a tool tool_result; info, warning and error records are text entries of
// their type.
func parseGemini(data []byte) []Entry {
	recs, _ := geminiDoc(data)
	var out []Entry
	for _, r := range recs {
		ts := stringOf(r.Timestamp)
		switch typ := stringOf(r.Type); typ {
		case RoleUser:
			for _, p := range geminiContent(r.Content) {
				s, isText := jsonString(p.Text)
				switch {
				case !isText:
				case strings.HasPrefix(s, geminiSessionContext):
					out = append(out, Entry{Role: "system", Kind: KindText, Text: s, Timestamp: ts})
				default:
					out = append(out, Entry{Role: RoleUser, Kind: KindText, Text: s, Timestamp: ts})
				}
			}
		case "gemini":
			base := Entry{Role: RoleAssistant, Timestamp: ts}
			var tk geminiTokens
			if object(r.Tokens, &tk) {
				base.InputTokens, base.OutputTokens = jsonInt(tk.Input), jsonInt(tk.Output)
			}
			for _, raw := range array(r.Thoughts) {
				var th struct {
					Subject     json.RawMessage `json:"subject"`
					Description json.RawMessage `json:"description"`
				}
				if object(raw, &th) {
					e := base
					e.Kind, e.Text = KindThinking, strings.TrimSpace(stringOf(th.Subject)+"\n"+stringOf(th.Description))
					copyTokens(&e)
					out = append(out, e)
				}
			}
			for _, p := range geminiContent(r.Content) {
				if s, ok := jsonString(p.Text); ok && s != "" {
					e := base
					e.Kind, e.Text = KindText, s
					copyTokens(&e)
					out = append(out, e)
				}
			}
			for _, c := range geminiCalls(r) {
				e := base
				e.Kind, e.Tool = KindToolUse, stringOf(c.Name)
				copyTokens(&e)
				out = append(out, e)
				if text, _, done := geminiResult(c); done {
					out = append(out, Entry{Role: RoleTool, Kind: KindToolResult, Text: text, Timestamp: ts})
				}
			}
		case "info", "warning", "error":
			out = append(out, Entry{Role: typ, Kind: KindText, Text: textOf(r.Content), Timestamp: ts})
		}
	}
	return out
}

// geminiTools: each tool call of a gemini record with an id is a call, and once it has
// a status its result, ok only for status success.
func geminiTools(data []byte) []ToolEvent {
	recs, _ := geminiDoc(data)
	var out []ToolEvent
	for _, r := range recs {
		if stringOf(r.Type) != "gemini" {
			continue
		}
		for _, c := range geminiCalls(r) {
			id := stringOf(c.ID)
			if id == "" {
				continue
			}
			name := stringOf(c.Name)
			out = append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: name, Args: compactJSON(c.Args)})
			if text, ok, done := geminiResult(c); done {
				out = append(out, ToolEvent{Kind: ToolResult, CallID: id, OK: ok, Text: text})
			}
		}
	}
	return out
}

// geminiTurnUsage sums the tokens of the gemini records after the last prompt, counted
// as qwen's ([addGeminiUsage]); each record once, as the file's replay keeps one per id.
// An error record starts afresh too: gemini-cli 0.61.0, when a request fails, rewrites
// the history without the failed prompt (a $set of messages) before the error record,
// so without this the refused turn would be given the previous turn's usage.
func geminiTurnUsage(data []byte) (Usage, bool) {
	recs, _ := geminiDoc(data)
	var u Usage
	any := false
	for _, r := range recs {
		if geminiIsPrompt(r) || stringOf(r.Type) == "error" {
			u, any = Usage{}, false
			continue
		}
		var tk geminiTokens
		if stringOf(r.Type) != "gemini" || !object(r.Tokens, &tk) {
			continue
		}
		any = true
		addGeminiUsage(&u, int64Of(tk.Input), int64Of(tk.Output), int64Of(tk.Cached), int64Of(tk.Thoughts))
		if m := stringOf(r.Model); m != "" {
			u.Model = m
		}
	}
	return u, any
}

// geminiLimit: an error record naming a limit or a quota after the last prompt and
// answer. gemini-cli 0.61.0's TUI, at the model stand-in's 429 and once the user chose
// "Stop" in its "Usage limit reached" dialog, wrote "[API Error: You have exhausted
// your daily quota on this model.]\nPlease wait and try again later. …" (then an info
// record "This request failed. …"); headless, it wrote nothing (the error went to
// stderr).
func geminiLimit(data []byte) (string, bool) {
	recs, _ := geminiDoc(data)
	notice := ""
	for _, r := range recs {
		switch typ := stringOf(r.Type); {
		case geminiIsPrompt(r), typ == "gemini" && len(geminiContent(r.Content)) > 0:
			notice = ""
		case typ == "error":
			if s := textOf(r.Content); namesLimit(s) || strings.Contains(strings.ToLower(s), "quota") {
				notice = s
			}
		}
	}
	return notice, notice != ""
}

// GeminiProject is the name gemini-cli gives the project of cwd in
// <dir>/projects.json ({"projects": {cwd: name}}); "" when it has none.
func GeminiProject(dir, cwd string) string {
	data, err := os.ReadFile(filepath.Join(dir, "projects.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	name := p.Projects[filepath.Clean(cwd)]
	if !validID(name) || name == "." || name == ".." {
		return ""
	}
	return name
}

// geminiCandidates: the chat files of the project of cwd,
// <dir>/tmp/<project>/chats/session-*.jsonl, ending -<first 8 of id>.jsonl when a
// session id is known.
func geminiCandidates(l Locator, dir, id string) ([]string, error) {
	if id != "" && !validID(id) || l.Cwd == "" {
		return nil, nil
	}
	project := GeminiProject(dir, l.Cwd)
	if project == "" {
		return nil, nil
	}
	name := "session-*.jsonl"
	if id != "" {
		name = "session-*-" + id[:min(8, len(id))] + ".jsonl"
	}
	return globFiles(filepath.Join(dir, "tmp", project, "chats", name), "gemini chats")
}

// geminiChoose is the identity gate for gemini, whose agent_session herdr does not
// report and which may write several files for one session: a resumed session keeps
// writing its old file and also starts a new one holding only its session context
// (gemini-cli 0.61.0). Kept are the candidates that hold a prompt, belong to session id
// (when known; else that were modified at or after createdAt). All of one session → the
// one modified last (copies of one conversation, not a choice between two); none →
// not_found; several sessions → ambiguous.
func geminiChoose(cands []string, createdAt time.Time, id string) (string, error) {
	slices.Sort(cands)
	type kept struct {
		path  string
		mtime int64
	}
	bySession := map[string][]kept{}
	for _, c := range cands {
		fi, err := os.Stat(c)
		if err != nil {
			continue
		}
		ms := fi.ModTime().UnixMilli()
		if id == "" && ms < createdAt.UnixMilli() {
			continue
		}
		data, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		recs, session := geminiDoc(data)
		if id != "" && session != id && len(id) > 8 || !slices.ContainsFunc(recs, geminiIsPrompt) {
			continue
		}
		bySession[session] = append(bySession[session], kept{c, ms})
	}
	what := "the agent's gemini chats"
	if id != "" {
		what = "gemini session " + id
	}
	switch len(bySession) {
	case 0:
		return "", Unavailable(wire.CauseNotFound, "no transcript file for "+what+mayBeRotated)
	case 1:
		for _, ks := range bySession {
			best := ks[0]
			for _, k := range ks[1:] {
				if k.mtime >= best.mtime {
					best = k
				}
			}
			return best.path, nil
		}
	}
	return "", Unavailable(wire.CauseAmbiguous,
		fmt.Sprintf("%d gemini sessions match %s; refusing to guess", len(bySession), what), "candidates", cands)
}

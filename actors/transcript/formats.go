package transcript

import (
	"encoding/json"
	"slices"
	"strings"
)

// The transcript formats of the agent CLIs beyond claude and codex (docs/providers.md
// §6.9). A provider names one of them as its transcript format; [Parse], [Tools],
// [TurnUsage], [LimitNotice], [Read] and [Locate] then dispatch to its adapter.
const (
	FormatPi       = "pi"       // pi-coding-agent 0.73: session v3 JSON Lines
	FormatQwen     = "qwen"     // qwen-code 0.24: Gemini-shaped JSON Lines
	FormatGemini   = "gemini"   // gemini-cli 0.61: JSON Lines of records and $set patches
	FormatOpencode = "opencode" // opencode 1.18: the JSON `opencode export <id>` prints
)

// adapter reads one format of §6.9. Each reads a whole transcript: gemini's patches and
// opencode's single document need all of it, so these formats do not promise, as
// claude's and codex's do, that a concatenation parses as the concatenation of parses.
type adapter struct {
	parse func([]byte) []Entry
	tools func([]byte) []ToolEvent
	usage func([]byte) (Usage, bool)
	limit func([]byte) (string, bool)
	// candidates lists the files that may hold session id's transcript (the identity
	// gate, §6.2), dir being the CLI's own directory ([Locator.AgentDir] or its default
	// under home). nil for a format without files.
	candidates func(l Locator, dir, id string) ([]string, error)
	// defaultDir is the CLI's own directory relative to the home.
	defaultDir string
}

// adapters is the registry of the formats of §6.9, by format name.
var adapters = map[string]adapter{
	FormatPi:       {parse: parsePi, tools: piTools, usage: piTurnUsage, limit: piLimit, candidates: piCandidates, defaultDir: ".pi/agent"},
	FormatQwen:     {parse: parseQwen, tools: qwenTools, usage: qwenTurnUsage, limit: qwenLimit, candidates: qwenCandidates, defaultDir: ".qwen"},
	FormatGemini:   {parse: parseGemini, tools: geminiTools, usage: geminiTurnUsage, limit: geminiLimit, candidates: geminiCandidates, defaultDir: ".gemini"},
	FormatOpencode: {parse: parseOpencode, tools: opencodeTools, usage: opencodeTurnUsage, limit: opencodeLimit},
}

// Formats lists every transcript format this package reads, sorted.
func Formats() []string {
	out := []string{FormatClaude, FormatCodex}
	for f := range adapters {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// KnownFormat reports whether format is one [Formats] lists.
func KnownFormat(format string) bool {
	_, ok := adapters[format]
	return ok || format == FormatClaude || format == FormatCodex
}

// --- helpers shared by the adapters ---

// object decodes raw into v when it is a JSON object; false otherwise.
func object(raw json.RawMessage, v any) bool {
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, v) == nil
}

// array decodes raw as a JSON array of raw items; nil for anything else.
func array(raw json.RawMessage) []json.RawMessage {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	return items
}

// jsonLines calls fn for every line of data that is a JSON object, in order.
func jsonLines(data []byte, fn func(line []byte)) {
	for _, l := range lines(data) {
		fn(l)
	}
}

// textOf is the text of raw: the string itself, or the string "text" fields of an
// array's objects joined with newlines ([toolResultText]).
func textOf(raw json.RawMessage) string { return toolResultText(raw) }

// ptr returns a pointer to a copy of v, nil when v is negative.
func ptr(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// jsonOut is raw compacted, or raw as a JSON string when it is a string holding a JSON
// object (as [codexArgs] reads arguments).
func jsonOut(raw json.RawMessage) json.RawMessage { return codexArgs(raw) }

// isBlank reports whether s is only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

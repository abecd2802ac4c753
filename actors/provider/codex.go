package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// CodexBypassFlag is the approvals/sandbox bypass flag of every codex launch without
// [Route.Approvals] (§4.2).
const CodexBypassFlag = "--dangerously-bypass-approvals-and-sandbox"

// Defaults of [CodexCatalog] (docs/providers.md §4.1).
const (
	DefaultCodexBin          = "codex"
	DefaultCodexFetchTimeout = 5 * time.Second
	DefaultCodexCacheTTL     = 300 * time.Second
)

// codexAnswerID is the request id of model/list, whose answer is the catalogue.
const codexAnswerID = 2

// codex is the codex integration module (docs/providers.md §4). Tuning, startup, shutdown
// (no line, §4.5) and interrupt come from common.
type codex struct {
	common
	cat *CodexCatalog
}

// Transcript is the codex format, located from agent_session (§4.6).
func (codex) Transcript() Transcript { return Transcript{Format: FormatCodex} }

// Route resolves the pair through config, then reads the catalogue (cached) and checks
// the model and that model's efforts.
func (c codex) Route(cfg *config.Config, model, effort string) (Route, error) {
	r, err := cfgOrDefault(cfg).ResolveRoute(Codex, model, effort)
	if err != nil {
		return Route{}, err
	}
	models, err := c.cat.Models(context.Background())
	if err != nil {
		return Route{}, err
	}
	if err := models.Validate(r.Model, r.Effort); err != nil {
		return Route{}, err
	}
	return Route{Provider: Codex, Model: r.Model, Effort: r.Effort}, nil
}

// LaunchArgv is `codex [--dangerously-bypass-approvals-and-sandbox] [--model <m>]
// [-c model_reasoning_effort=<e>]` ("-c" and the assignment are two elements), the
// bypass flag left out for r.Approvals.
func (codex) LaunchArgv(r Route) ([]string, error) {
	argv := []string{Codex}
	if !r.Approvals {
		argv = append(argv, CodexBypassFlag)
	}
	if r.Model != "" {
		argv = append(argv, "--model", r.Model)
	}
	if r.Effort != "" {
		argv = append(argv, "-c", "model_reasoning_effort="+r.Effort)
	}
	return argv, nil
}

// CodexLoginScreens are phrases of codex's sign-in screens (docs/providers.md §4.3),
// as codex 0.169.0 shows them without a login: its first screen offers "Sign in with
// ChatGPT" and "Sign in with Device Code"; after the first choice it says "Finish
// signing in via your browser".
var CodexLoginScreens = []string{"sign in with chatgpt", "sign in with device code", "finish signing in via your browser"}

// CodexSetupScreens are phrases of codex's questions about its own settings (§5.2):
// 0.169.0, after its usage-limit message, offers a cheaper model ("Approaching rate
// limits … Switch to <model>?") with "Switch" selected, so a typed prompt's Enter would
// change the agent's model.
var CodexSetupScreens = []string{"approaching rate limits"}

// Startup is the shared recipe (§5) with codex's login and setup screens.
func (c codex) Startup(cfg *config.Config) Startup {
	st := c.common.Startup(cfg)
	st.LoginScreens = append([]string(nil), CodexLoginScreens...)
	st.SetupScreens = append([]string(nil), CodexSetupScreens...)
	return st
}

// Keys of codex's approval overlay (§4.8).
const (
	CodexApproveKey = "y"
	CodexDenyKey    = "n"
)

// ApproveKeys is ["y"], the approval overlay's "Yes" (§4.8).
func (codex) ApproveKeys() []string { return []string{CodexApproveKey} }

// DenyKeys is ["n"], the overlay's "No": codex tells the model the call was rejected
// (§4.8).
func (codex) DenyKeys() []string { return []string{CodexDenyKey} }

// ModelSwitch has no recipe for codex: its /model command opens an interactive picker
// and takes no argument (§4.8).
func (codex) ModelSwitch(string) (string, bool) { return "", false }

// CodexResumeCommand is the codex subcommand that continues a session (§4.7).
const CodexResumeCommand = "resume"

// ResumeArgv is `codex resume <session id>` followed by the flags LaunchArgv(r) adds
// (§4.7). The id is value for kind "id", which must pass [validSessionID]; for kind
// "path" it is the UUID that ends the file's base name (codex names its rollouts
// rollout-<timestamp>-<uuid>.jsonl).
func (c codex) ResumeArgv(r Route, kind, value string) ([]string, error) {
	var id string
	switch kind {
	case SessionKindID:
		id = value
		if !validSessionID(id) {
			return nil, notResumable("Codex", kind, value,
				"a Codex session id is ASCII letters, digits, `_` and `-`, not starting with `-`")
		}
	case SessionKindPath:
		id = codexRolloutID(filepath.Base(value))
		if id == "" {
			return nil, notResumable("Codex", kind, value,
				"a Codex rollout is named rollout-<timestamp>-<uuid>.jsonl")
		}
	case "":
		return nil, notResumable("Codex", kind, value, noPointer)
	default:
		return nil, notResumable("Codex", kind, value, "the kind must be `id` or `path`")
	}
	flags, err := c.LaunchArgv(r)
	if err != nil {
		return nil, err
	}
	return append([]string{flags[0], CodexResumeCommand, id}, flags[1:]...), nil
}

// codexRolloutID returns the session UUID of a rollout file name "…-<uuid>.jsonl",
// or "" when base is not named so.
func codexRolloutID(base string) string {
	stem, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || len(stem) < 37 || stem[len(stem)-37] != '-' {
		return ""
	}
	if id := stem[len(stem)-36:]; isUUID(id) {
		return id
	}
	return ""
}

// CodexModel is one model of the codex catalogue.
type CodexModel struct {
	Model string `json:"model"`
	// Efforts are the model's supportedReasoningEfforts in catalogue order. Empty when
	// the catalogue carries none for it; then any effort is accepted.
	Efforts []string `json:"efforts,omitempty"`
}

// CodexModels is a codex catalogue in the order the app-server listed it.
type CodexModels []CodexModel

// Names returns the model names in catalogue order.
func (m CodexModels) Names() []string {
	names := make([]string, len(m))
	for i, x := range m {
		names[i] = x.Model
	}
	return names
}

// Find returns the entry of model.
func (m CodexModels) Find(model string) (CodexModel, bool) {
	for _, x := range m {
		if x.Model == model {
			return x, true
		}
	}
	return CodexModel{}, false
}

// Validate checks a codex route against the catalogue: an unknown model is
// invalid_request invalid_model, an effort the model does not offer is invalid_effort
// (docs/providers.md §4.1). A model whose entry lists no efforts accepts any effort.
func (m CodexModels) Validate(model, effort string) error {
	x, ok := m.Find(model)
	if !ok {
		return invalidModel(Codex, "Codex", model, m.Names())
	}
	if len(x.Efforts) > 0 && !slices.Contains(x.Efforts, effort) {
		return invalidEffort(Codex, "Codex", model, effort, x.Efforts)
	}
	return nil
}

// CodexCatalog obtains and caches the codex model catalogue (docs/providers.md §4.1): it
// runs `codex app-server --stdio`, sends initialize, initialized and model/list, and
// parses the answer to model/list. A successful result is cached for TTL; failures are
// not cached. The zero value is ready to use. Fields must not change after first use.
type CodexCatalog struct {
	// Run performs the exchange: start argv, write [CodexRequests], read stdout until
	// the model/list answer arrives or ctx ends, stop the child and return what was
	// read. nil means the real exchange with the process (see [RunAppServer]).
	Run func(ctx context.Context, argv []string) ([]byte, error)
	// Now is the clock of the cache; nil means time.Now.
	Now func() time.Time
	// Bin is the codex binary; empty means [DefaultCodexBin] looked up on PATH.
	Bin string
	// Version is clientInfo.version; empty means the orcr version.
	Version string
	// Timeout bounds one fetch; 0 means [DefaultCodexFetchTimeout].
	Timeout time.Duration
	// TTL is the cache lifetime; 0 means [DefaultCodexCacheTTL].
	TTL time.Duration

	mu        sync.Mutex // held across a fetch, so concurrent validations share it
	models    CodexModels
	fetchedAt time.Time
}

// DefaultCodexCatalog is the process-wide catalogue used when [Options] names none.
var DefaultCodexCatalog = &CodexCatalog{}

// Argv returns the command run for the catalogue: `<bin> app-server --stdio`.
func (c *CodexCatalog) Argv() []string {
	bin := c.Bin
	if bin == "" {
		bin = DefaultCodexBin
	}
	return []string{bin, "app-server", "--stdio"}
}

func (c *CodexCatalog) version() string {
	if c.Version == "" {
		return api.Version
	}
	return c.Version
}

func (c *CodexCatalog) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// Models returns the catalogue, from the cache while it is younger than TTL, else by
// running the exchange with a Timeout deadline. Any failure (spawn, write, timeout,
// no answer, no result.data, empty catalogue) is environment_error
// model_catalog_unavailable.
func (c *CodexCatalog) Models(ctx context.Context) (CodexModels, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultCodexCacheTTL
	}
	if c.models != nil && c.now().Sub(c.fetchedAt) < ttl {
		return c.models, nil
	}
	models, err := c.fetch(ctx)
	if err != nil {
		return nil, wire.Env(wire.CauseModelCatalogUnavailable,
			"could not read the codex model catalogue (`"+joinArgv(c.Argv())+"`): "+err.Error()).Wrap(err)
	}
	c.models, c.fetchedAt = models, c.now()
	return models, nil
}

// Invalidate drops the cached catalogue.
func (c *CodexCatalog) Invalidate() {
	c.mu.Lock()
	c.models = nil
	c.mu.Unlock()
}

func (c *CodexCatalog) fetch(ctx context.Context) (CodexModels, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCodexFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	run := c.Run
	if run == nil {
		req := CodexRequests(c.version())
		run = func(ctx context.Context, argv []string) ([]byte, error) {
			return RunAppServer(ctx, argv, req)
		}
	}
	out, err := run(ctx, c.Argv())
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s", timeout)
		}
		return nil, ctxErr
	}
	if err != nil {
		return nil, err
	}
	return ParseCodexModelList(out)
}

func joinArgv(argv []string) string {
	var b bytes.Buffer
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// CodexRequests returns the three newline-terminated JSON messages written to the
// app-server (docs/providers.md §4.1 step 2): initialize (clientInfo orcr/version,
// experimentalApi), initialized, and model/list with includeHidden and limit 100.
func CodexRequests(version string) []byte {
	type clientInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	msgs := []any{
		struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params any    `json:"params"`
		}{1, "initialize", struct {
			ClientInfo   clientInfo `json:"clientInfo"`
			Capabilities struct {
				ExperimentalAPI bool `json:"experimentalApi"`
			} `json:"capabilities"`
		}{ClientInfo: clientInfo{"orcr", version}, Capabilities: struct {
			ExperimentalAPI bool `json:"experimentalApi"`
		}{true}}},
		// No params: the protocol declares none for this notification (§4.1).
		struct {
			Method string `json:"method"`
		}{Method: "initialized"},
		struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params any    `json:"params"`
		}{codexAnswerID, "model/list", struct {
			IncludeHidden bool `json:"includeHidden"`
			Limit         int  `json:"limit"`
		}{true, 100}},
	}
	var b bytes.Buffer
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			panic(err) // fixed shapes: cannot fail
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// codexAnswer is the part of a JSON-RPC line this package reads.
type codexAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Data *[]struct {
			Model                     *string `json:"model"`
			SupportedReasoningEfforts []struct {
				ReasoningEffort string `json:"reasoningEffort"`
			} `json:"supportedReasoningEfforts"`
		} `json:"data"`
	} `json:"result"`
}

// answerLine decodes line as a JSON object answering model/list (id 2).
func answerLine(line []byte) (codexAnswer, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return codexAnswer{}, false
	}
	var a codexAnswer
	if json.Unmarshal(line, &a) != nil {
		return codexAnswer{}, false
	}
	var id float64 // a number only: the string "2" is another id
	if len(a.ID) == 0 || json.Unmarshal(a.ID, &id) != nil || id != codexAnswerID {
		return codexAnswer{}, false
	}
	return a, true
}

// IsCodexAnswer reports whether line is the app-server's answer to model/list: a JSON
// object whose id is the number 2.
func IsCodexAnswer(line []byte) bool {
	_, ok := answerLine(line)
	return ok
}

// ParseCodexModelList parses the app-server's stdout (docs/providers.md §4.1 steps 3–4):
// lines that are not JSON objects, or are objects with another id, are skipped; the
// first object with id 2 is the answer. Its result.data[] items give the models
// (model) and their efforts (supportedReasoningEfforts[].reasoningEffort); items
// without a non-empty model are dropped, as are blank efforts; a repeated model keeps
// its first entry. No answer, no result.data, or an empty catalogue is an error.
func ParseCodexModelList(out []byte) (CodexModels, error) {
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte{'\n'})
		a, ok := answerLine(line)
		if !ok {
			continue
		}
		if a.Result == nil || a.Result.Data == nil {
			return nil, errors.New("the model/list answer has no result.data")
		}
		var models CodexModels
		seen := map[string]bool{}
		for _, item := range *a.Result.Data {
			if item.Model == nil || *item.Model == "" || seen[*item.Model] {
				continue
			}
			seen[*item.Model] = true
			m := CodexModel{Model: *item.Model}
			for _, e := range item.SupportedReasoningEfforts {
				if e.ReasoningEffort != "" && !slices.Contains(m.Efforts, e.ReasoningEffort) {
					m.Efforts = append(m.Efforts, e.ReasoningEffort)
				}
			}
			models = append(models, m)
		}
		if len(models) == 0 {
			return nil, errors.New("the model catalogue is empty")
		}
		return models, nil
	}
	return nil, errors.New("no answer to model/list")
}

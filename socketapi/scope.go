package socketapi

import (
	"crypto/rand"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Lineage is who a client speaks for: the agent or loop run whose environment it was
// built from ([FromEnv]), or nobody (a root shell).
type Lineage struct {
	// Kind is "agent", "loop_run" or "root".
	Kind string
	// ID and Path are ORCR_ID and ORCR_PATH (empty for root).
	ID, Path string
	// Scope is where relative paths land (docs/cli.md §2.2): an agent's path without its
	// name, a loop run's whole path, "" at root.
	Scope string
	// DataDir is the agent's ORCR_AGENT_DATA_DIR or the run's ORCR_LOOP_DATA_DIR.
	DataDir string
}

// FromEnv returns the client of code running inside an agent pane or a loop run: it
// talks to the server of ORCR_HOME and sends ORCR_ID / ORCR_PATH as the caller of every
// agent verb, so agents it creates are children of the caller and relative paths land in
// the caller's scope, exactly as with the CLI. Outside an agent it is the zero client.
func FromEnv() *Client { return FromGetenv(os.Getenv) }

// FromGetenv is [FromEnv] reading the environment through getenv.
func FromGetenv(getenv func(string) string) *Client {
	c := &Client{lineage: lineageOf(getenv)}
	if home, err := config.ResolveHome(getenv); err == nil {
		c.Socket = config.NewPaths(home).Socket
	}
	return c
}

// lineageOf applies the rules of docs/cli.md §2.2: a loop run has ORCR_ID, ORCR_PATH and
// ORCR_LOOP_DATA_DIR but no ORCR_AGENT_DATA_DIR; an agent has ORCR_AGENT_DATA_DIR,
// ORCR_ID and ORCR_PATH. Empty values count as unset.
func lineageOf(getenv func(string) string) Lineage {
	id, path := getenv("ORCR_ID"), getenv("ORCR_PATH")
	agentDir, loopDir := getenv("ORCR_AGENT_DATA_DIR"), getenv("ORCR_LOOP_DATA_DIR")
	switch {
	case id != "" && path != "" && agentDir == "" && loopDir != "":
		return Lineage{Kind: "loop_run", ID: id, Path: path, Scope: path, DataDir: loopDir}
	case id != "" && path != "" && agentDir != "":
		scope := ""
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			scope = path[:i]
		}
		return Lineage{Kind: "agent", ID: id, Path: path, Scope: scope, DataDir: agentDir}
	case id != "" || path != "":
		// Caller identity without the rest: sent as given, the server derives the scope.
		return Lineage{Kind: "agent", ID: id, Path: path}
	}
	return Lineage{Kind: "root"}
}

// Lineage returns who the client speaks for.
func (c *Client) Lineage() Lineage { return c.lineage }

// CurrentScope returns the scope relative paths land in: the one [Client.Scope] set, else
// the lineage's.
func (c *Client) CurrentScope() string {
	if c.scoped {
		return c.scope
	}
	return c.lineage.Scope
}

// Scope returns a client whose paths live under name, composed onto the current scope
// with the CLI's rules (docs/cli.md §3): a relative name nests under the current scope,
// a leading / makes it absolute, {rand} expands to five random characters. Requests of
// the returned client carry absolute paths (so the server applies no scope again) and
// the same caller identity. Names of agents created through it, their targets, wait and
// kill targets and ls patterns are joined under the scope; a target containing '-' (a
// uuid) or starting with / is sent as it is. An empty ls pattern lists the scope
// (name/**). An empty name, or a bare /, is invalid_request empty_path.
func (c *Client) Scope(name string) (*Client, error) {
	base := c.CurrentScope()
	rest, abs := strings.CutPrefix(name, "/")
	if rest == "" {
		return nil, checkPath("")
	}
	if abs {
		base = ""
	}
	full := joinPath(base, expandRand(rest))
	if err := checkPath(full); err != nil {
		return nil, err
	}
	return &Client{Socket: c.Socket, Dial: c.Dial, Timeout: c.Timeout, FollowInterval: c.FollowInterval, Spawn: c.Spawn,
		OnResume: c.OnResume, lineage: c.lineage, scope: full, scoped: true, host: c.host}, nil
}

var segment = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// checkPath is the path grammar's shape check (docs/cli.md §3.1) on a scope.
func checkPath(p string) error {
	if p == "" {
		return wire.Invalid(wire.ReasonEmptyPath, "a scope needs at least one segment")
	}
	segs := strings.Split(p, "/")
	if len(p) > 256 {
		return wire.Invalid(wire.ReasonPathTooLong, "scope "+p+" is longer than 256 characters", "path", p, "len", len(p))
	}
	if len(segs) > 8 {
		return wire.Invalid(wire.ReasonPathTooDeep, "scope "+p+" has more than 8 segments", "path", p, "segments", len(segs))
	}
	for _, s := range segs {
		if !segment.MatchString(s) {
			return wire.Invalid(wire.ReasonInvalidSegment, "scope segment "+s+" is not [a-z0-9_]{1,64}", "path", p, "segment", s)
		}
	}
	return nil
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

func expandRand(s string) string {
	for strings.Contains(s, "{rand}") {
		s = strings.Replace(s, "{rand}", randSegment(), 1)
	}
	return s
}

func randSegment() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// scoper composes a request's paths under a scope.
type scoper struct{ scope string }

// create is the creation target of run/ask: exactly one of name and path.
func (s scoper) create(name, path string) (string, error) {
	switch {
	case name == "" && path == "":
		return "", wire.Invalid(wire.ReasonNameRequired, "one of name or path is required")
	case name != "" && path != "":
		return "", wire.Invalid(wire.ReasonNameAndPath, "name and path are mutually exclusive")
	case strings.Contains(name, "/"):
		return "", wire.Invalid(wire.ReasonInvalidName, "name "+strconv.Quote(name)+` must be a single segment (no "/"); use path for nesting`)
	case name != "":
		return "/" + joinPath(s.scope, name), nil
	case strings.HasPrefix(path, "/"):
		return path, nil
	}
	return "/" + joinPath(s.scope, path), nil
}

// selector is a target or pattern: uuids and absolute selectors go as they are.
func (s scoper) selector(t string) string {
	if t == "" || strings.HasPrefix(t, "/") || strings.Contains(t, "-") {
		return t
	}
	return "/" + joinPath(s.scope, t)
}

func (s scoper) selectors(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = s.selector(t)
	}
	return out
}

// inScope composes the paths of the request req points to under the scope; a request
// without paths is left as it is.
func (s scoper) inScope(req any) (err error) {
	switch r := req.(type) {
	case *api.RunRequest:
		r.Path, err = s.create(r.Name, r.Path)
		r.Name = ""
	case *api.AskRequest:
		if r.Resume != "" {
			return nil // a uuid; name and path are not read
		}
		r.Path, err = s.create(r.Name, r.Path)
		r.Name = ""
	case *api.SendRequest:
		r.Target = s.selector(r.Target)
	case *api.LogsRequest:
		r.Target = s.selector(r.Target)
	case *api.AttachPrepareRequest:
		r.Target = s.selector(r.Target)
	case *api.WaitRequest:
		r.Targets = s.selectors(r.Targets)
	case *api.KillRequest:
		r.Targets = s.selectors(r.Targets)
	case *api.LsRequest:
		if r.Pattern == "" {
			r.Pattern = "/" + s.scope + "/**"
		} else {
			r.Pattern = s.selector(r.Pattern)
		}
	}
	return err
}

// callerOf returns the caller identity embedded in the request req points to (nil for
// a request without one).
func callerOf(req any) *api.Caller {
	v := reflect.ValueOf(req)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("Caller")
	if !f.IsValid() || f.Type() != reflect.TypeFor[api.Caller]() {
		return nil
	}
	return f.Addr().Interface().(*api.Caller)
}

// prepare fills the caller identity and composes the scope of req (a pointer to a
// request value).
func (c *Client) prepare(req any) error {
	if cr := callerOf(req); cr != nil && cr.CallerID == "" && cr.CallerPath == "" {
		*cr = api.Caller{CallerID: c.lineage.ID, CallerPath: c.lineage.Path}
	}
	if c.scoped {
		return scoper{scope: c.scope}.inScope(req)
	}
	return nil
}

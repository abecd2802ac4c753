package tests

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module path every orcr package starts with.
const module = "github.com/orcr-go/orcr"

// natsModules is the prefix of the NATS modules, which only socketapi/fleet imports.
const natsModules = "github.com/nats-io/"

// contract is the leaf package of the wire contract (README.md's layout): the method
// table, the request, result and row types, the statuses, the error codes, the event
// kinds and the wire envelopes. It imports nothing of orcr but itself.
var contract = []string{"socketapi/api", "socketapi/api/wire", "socketapi/api/wire/pathglob"}

// graph is the allowed package graph: every package of the module, from the ground floor
// up, with the orcr packages it may import. A package may only import packages listed
// before it, so no import runs back up and none closes a cycle. A new package, or a new
// import, is added here on purpose.
var graph = []struct {
	pkg string
	may []string
}{
	// The contract.
	{"socketapi/api/wire", nil},
	{"socketapi/api/wire/pathglob", []string{"socketapi/api/wire"}},
	{"socketapi/api", []string{"socketapi/api/wire"}},

	// Leaves that import nothing of orcr: the actor kit, log rotation, herdr's socket
	// schema, the remote stream's frames and client, the git worktree commands, the SDK's
	// embedded files, the skill and the tests' polling helper.
	{"actors/actorkit", nil},
	{"config/rotate", nil},
	{"herdr/herdrschema", nil},
	{"socketapi/remote", nil},
	{"actors/worktree", nil},
	{"socketapi/ts", nil},
	{"cmd/orcr/cli/skill", nil},
	{"tests/poll", nil},

	// Configuration, then the store and herdr: the contract below them, nothing else
	// of socketapi, and no actor kit (the driver is handed its Props).
	{"config", contract},
	{"config/service", with(contract, "config")},
	{"store", contract},
	{"store/agentpath", with(contract, "store")},
	{"herdr", with(contract, "config")},

	// The use cases: the actors and the subsystems they drive.
	{"actors/runproc", []string{"config/rotate"}},
	{"actors/paneexec/launcher", nil},
	{"actors/paneexec", []string{"actors/paneexec/launcher"}},
	{"actors/schedule", with(contract, "config")},
	{"actors/transcript", contract},
	{"actors/provider", with(contract, "config", "herdr")},
	{"actors/notify", with(contract, "config", "herdr", "store")},
	{"actors", with(contract, "actors/actorkit", "actors/notify", "actors/paneexec", "actors/provider", "actors/runproc",
		"actors/schedule", "actors/transcript", "actors/worktree", "config", "config/service", "herdr",
		"socketapi/remote", "store", "store/agentpath")},

	// The Go client, then the socket layer on top of the use cases; the fleet layer is
	// the only package that imports NATS (docs/fleet.md).
	{"socketapi", with(contract, "config")},
	{"socketapi/fleet", with(contract, "config", "store")},
	{"socketapi/ws", with(contract, "actors", "config", "socketapi/remote")},
	{"socketapi/server", with(contract, "actors", "actors/actorkit", "config", "config/rotate", "socketapi",
		"socketapi/ws", "store", "socketapi/fleet")},

	// Programs and the SDK's recipes.
	{"socketapi/recipes/recipe", with(contract, "socketapi")},
	{"socketapi/recipes/adversarial_verification", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/classify_and_act", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/fan_out_merge", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/fix_until_green", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/generate_and_filter", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/loop_until_done", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"socketapi/recipes/tournament", with(contract, "socketapi", "socketapi/recipes/recipe")},
	{"cmd/orcr/mcp", with(contract, "socketapi")},
	{"cmd/orcr/top", with(contract, "socketapi", "store/agentpath")},
	{"cmd/orcr/cli", with(contract, "actors/paneexec/launcher", "actors/runproc", "actors/transcript", "cmd/orcr/cli/skill", "cmd/orcr/mcp", "cmd/orcr/top",
		"config", "config/service", "socketapi/fleet", "socketapi", "socketapi/ts", "store/agentpath")},
	{"cmd/orcr", []string{"actors/paneexec/launcher", "cmd/orcr/cli", "socketapi/server"}},
	{"cmd/orcr-demo", []string{"config", "socketapi/remote"}},
	{"cmd/orcr-mock-agent", nil},

	// Stand-ins and test kits: real parts for tests, never imported by the product.
	{"actors/provider/modeltest", nil},
	{"socketapi/fleet/fleettest", []string{"socketapi/fleet"}},
	{"actors/provider/providertest", nil},
	{"actors/worktree/worktreetest", nil},
	{"config/service/servicetest", nil},
	{"herdr/herdrtest", []string{"herdr/herdrschema"}},
	{"store/storetest", with(contract, "store")},
	{"socketapi/sockettest", with(contract, "socketapi", "socketapi/server")},
	{"cmd/herdr-standin", []string{"herdr/herdrschema", "herdr/herdrtest"}},
	{"cmd/orcr-model-standin", []string{"actors/provider/modeltest"}},
	{"tests/otheruid", nil},
	{"tests", nil},
}

func with(base []string, more ...string) []string {
	return append(slices.Clone(base), more...)
}

// TestGraphAllowsNoUpwardImport checks the non-test imports of every package of the
// module against graph: the contract is a leaf, store, herdr, actors and config import
// only the contract of socketapi, herdr reaches for nothing under actors/, and nothing
// imports a package above its own.
func TestGraphAllowsNoUpwardImport(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	var nats []string
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, ok := rel(fields[0])
		if !ok {
			t.Fatalf("go list named %s, outside the module", fields[0])
		}
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				imports[pkg] = append(imports[pkg], r)
			}
			if strings.HasPrefix(imp, natsModules) && pkg != "socketapi/fleet" && pkg != "socketapi/fleet/fleettest" {
				nats = append(nats, pkg+" imports "+imp)
			}
		}
	}
	if len(nats) > 0 {
		t.Errorf("only socketapi/fleet (and its test kit) imports NATS (docs/fleet.md):\n%s", strings.Join(nats, "\n"))
	}
	if len(imports) < 40 {
		t.Fatalf("go list found %d packages; expected the whole module", len(imports))
	}
	if bad := checkGraph(imports); len(bad) > 0 {
		t.Errorf("the package graph breaks its rules (tests/graph_test.go):\n%s", strings.Join(bad, "\n"))
	}
}

// TestGraphCheckFails keeps the check honest: an upward import, an import the table does
// not allow, a package the table does not list and a table entry that allows an import
// from above are each reported.
func TestGraphCheckFails(t *testing.T) {
	actual := func() map[string][]string {
		m := map[string][]string{}
		for _, e := range graph {
			m[e.pkg] = slices.Clone(e.may)
		}
		return m
	}
	if bad := checkGraph(actual()); len(bad) > 0 {
		t.Fatalf("the table itself is refused: %v", bad)
	}
	cases := []struct {
		name   string
		change func(map[string][]string)
		want   string
	}{
		{"store imports the client", func(m map[string][]string) { m["store"] = append(m["store"], "socketapi") }, "store imports socketapi"},
		{"herdr reaches for the actor kit", func(m map[string][]string) { m["herdr"] = append(m["herdr"], "actors/actorkit") }, "herdr imports actors/actorkit"},
		{"the contract imports config", func(m map[string][]string) { m["socketapi/api"] = append(m["socketapi/api"], "config") }, "socketapi/api imports config"},
		{"an unlisted package", func(m map[string][]string) { m["store/newthing"] = []string{"store"} }, "store/newthing is not in the graph"},
	}
	for _, c := range cases {
		m := actual()
		c.change(m)
		bad := checkGraph(m)
		if !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, c.want) }) {
			t.Errorf("%s: got %q, want a line with %q", c.name, bad, c.want)
		}
	}
	// A table entry may not allow an import from a package listed after it.
	saved := graph
	defer func() { graph = saved }()
	graph = slices.Clone(saved)
	for i, e := range graph {
		if e.pkg == "config" {
			graph[i].may = with(e.may, "actors")
		}
	}
	if bad := checkGraph(actual()); !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, "config may import actors, which is listed after it") }) {
		t.Errorf("an upward allowance: got %q", bad)
	}
}

// checkGraph returns one line per broken rule of imports (package → its orcr imports).
func checkGraph(imports map[string][]string) []string {
	var bad []string
	pos := map[string]int{}
	for i, e := range graph {
		if _, dup := pos[e.pkg]; dup {
			bad = append(bad, e.pkg+" is listed twice")
		}
		pos[e.pkg] = i
	}
	for i, e := range graph {
		for _, m := range e.may {
			if j, ok := pos[m]; !ok || j >= i {
				bad = append(bad, e.pkg+" may import "+m+", which is listed after it (or not at all)")
			}
		}
		if _, ok := imports[e.pkg]; !ok {
			bad = append(bad, e.pkg+" is in the graph but not in the module: remove it")
		}
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		i, ok := pos[p]
		if !ok {
			bad = append(bad, p+" is not in the graph: add it on its floor with what it may import")
			continue
		}
		for _, imp := range imports[p] {
			if !slices.Contains(graph[i].may, imp) {
				bad = append(bad, p+" imports "+imp+", which the graph does not allow")
			}
		}
	}
	return bad
}

// rel returns an import path relative to the module ("" for the module's root).
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

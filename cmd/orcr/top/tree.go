// Package top is `orcr top` (docs/cli.md §5.25, docs/top.md): a Bubble Tea program that
// keeps the watch.open snapshot current by applying each event's row, draws the fleet as
// a tree and acts on it through the Go SDK.
//
// The pure parts are separate from the terminal: [Build] turns a snapshot and the
// filters into a tree, [Tree.Rows] flattens it under the collapsed set, the format
// functions turn rows into cells, and [Model] is the Elm-style state whose Update and
// View the tests drive without a terminal. Only run.go touches the terminal, and only
// run.go and fleet.go (the other members, `top --fleet`) the socket.
package top

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store/agentpath"
)

// Kind is what a tree node stands for.
type Kind int

// Node kinds (docs/top.md §2).
const (
	KindScope Kind = iota // a path segment with no agent of its own
	KindAgent             // an agent at its path
	KindLoop              // a loop, keyed by its name
	KindRun               // an active run of a loop, keyed by its run_id
	KindDone              // the synthetic "done" node holding parked agents
	KindHost              // another member of the fleet, its agents below (`top --fleet`)
)

// doneKey is the internal key of the node holding parked agents (shown as "done").
const doneKey = "idle"

// Node is one node of the tree.
type Node struct {
	Kind Kind
	// Key is the node's segment among its siblings (the full path for a parked agent
	// under "done").
	Key string
	// ID is the node's identity for selection and collapse: its display path
	// ("unmanaged/default/…" shows without "default", ID keeps the display form).
	ID string
	// Path is the canonical path the node stands for ("" for done); kill and wait
	// act on it.
	Path     string
	Agent    *api.AgentRow
	Loop     *api.SnapshotLoop
	Run      *api.SnapshotRun
	Children []*Node
	// Parent is the node above (nil for roots).
	Parent *Node
	// Host is the fleet member the node's agents run on ("" for this server's own);
	// Path is then a path on that member, and actions go to it over the fleet.
	Host string
	// Remote is what top knows of the member, on its KindHost node.
	Remote *Remote
	// Lineage is the parent_path of an agent whose parent is not an ancestor of its own
	// path ("" otherwise): shown as "↖ <parent_path>".
	Lineage string
	// Blocked counts blocked agents in the subtree, the node itself included.
	Blocked int
	// Agents counts agents in the subtree, the node itself included.
	Agents int
	// Usage sums the usage on the rows of the subtree's agents, the node itself
	// included (docs/usage.md §4): the cost column.
	Usage api.AgentUsage
}

// Tree is the built tree: its roots in display order, and counts for the header.
type Tree struct {
	Roots []*Node
	// Agents and Blocked count the agent nodes (header: "N agents · M needs input").
	Agents, Blocked int
	// Loops counts loop nodes.
	Loops int
	byID  map[string]*Node
}

// Options are the filters of `orcr top` (docs/cli.md §5.25). Keep is the agent.ls
// predicate compiled for the same query; Loops keeps only run agents (and loops).
type Options struct {
	Keep *agentpath.Filter
	// Extra is the `/` filter typed in the UI (nil = none), AND-ed with Keep.
	Extra *agentpath.Pattern
	// Unmanaged hides loops (the ownership filter is in Keep).
	Unmanaged bool
	Loops     bool
}

// Build makes the tree of snap under opts (docs/top.md §2): loops and their active runs
// first, then every agent that passes the filter once at its path (missing ancestors as
// scope nodes), parked agents under "done", lineage annotations, the "default" herdr
// session transparent under "unmanaged", and siblings ordered blocked first, then by
// segment.
func Build(snap api.Snapshot, opts Options) *Tree {
	t := &Tree{byID: map[string]*Node{}}
	root := &Node{}
	child := func(parent *Node, key string, kind Kind) *Node {
		id := key
		if parent.ID != "" {
			id = parent.ID + "/" + key
		}
		if n, ok := t.byID[id]; ok {
			return n
		}
		n := &Node{Kind: kind, Key: key, ID: id, Parent: parent, Path: id}
		if parent == root {
			n.Parent = nil
		}
		parent.Children = append(parent.Children, n)
		t.byID[id] = n
		return n
	}
	runPaths := map[string]bool{}
	loopNames := map[string]bool{}
	if !opts.Unmanaged {
		for i := range snap.Loops {
			l := &snap.Loops[i]
			ln := child(root, l.Name, KindLoop)
			ln.Loop = l
			loopNames[l.Name] = true
			t.Loops++
			for j := range l.Runs {
				r := &l.Runs[j]
				rn := child(ln, r.RunID, KindRun)
				rn.Run = r
				runPaths[rn.Path] = true
			}
		}
	}
	var done *Node
	for i := range snap.Agents {
		a := &snap.Agents[i]
		if !keep(opts, a) {
			continue
		}
		segs := strings.Split(a.Path, "/")
		if opts.Loops && (len(segs) < 2 || !loopNames[segs[0]]) {
			continue
		}
		var n *Node
		if a.Status == api.StatusParked {
			if done == nil {
				done = &Node{Kind: KindDone, Key: doneKey, ID: doneKey}
				t.byID[doneKey] = done
			}
			n = &Node{Kind: KindAgent, Key: a.Path, ID: doneKey + "/" + a.Path, Parent: done, Path: a.Path}
			done.Children = append(done.Children, n)
			t.byID[n.ID] = n
		} else {
			display := segs
			if len(segs) >= 3 && segs[0] == "unmanaged" && segs[1] == "default" {
				display = append([]string{"unmanaged"}, segs[2:]...)
			}
			at := root
			for k, s := range display {
				kind := KindScope
				if k == len(display)-1 {
					kind = KindAgent
				}
				at = child(at, s, kind)
				if at.Path != a.Path && k == len(display)-1 {
					at.Path = a.Path
				}
			}
			if at.Agent != nil {
				// Two live rows at one path: keep both, the second keyed by its uuid.
				at = child(at.parentOr(root), at.Key+" "+a.UUID[:min(8, len(a.UUID))], KindAgent)
				at.Path = a.Path
			}
			n = at
			n.Kind = KindAgent
		}
		n.Agent = a
		if pp := a.ParentPath; pp != nil && *pp != "" && !strings.HasPrefix(a.Path, *pp+"/") {
			n.Lineage = *pp
		}
	}
	if done != nil {
		root.Children = append(root.Children, done)
	}
	if opts.Extra != nil || (opts.Keep != nil && opts.Keep.Pattern() != nil) {
		// Under a pattern a loop stays when its name, one of its runs or one of its
		// agents matches.
		root.Children = slices.DeleteFunc(root.Children, func(n *Node) bool {
			return n.Kind == KindLoop && !loopMatches(n, opts)
		})
	}
	count(root.Children)
	for _, r := range root.Children {
		t.Agents += r.Agents
		t.Blocked += r.Blocked
	}
	sortNodes(root.Children)
	t.Roots = root.Children
	return t
}

func loopMatches(n *Node, opts Options) bool {
	match := func(p string) bool {
		return (opts.Extra == nil || opts.Extra.Match(p)) && (opts.Keep == nil || opts.Keep.Pattern() == nil || opts.Keep.Pattern().Match(p))
	}
	if match(n.Path) || hasAgent(n) {
		return true
	}
	for _, c := range n.Children {
		if c.Kind == KindRun && match(c.Path) {
			return true
		}
	}
	return false
}

func hasAgent(n *Node) bool {
	if n.Agent != nil {
		return true
	}
	for _, c := range n.Children {
		if hasAgent(c) {
			return true
		}
	}
	return false
}

func (n *Node) parentOr(root *Node) *Node {
	if n.Parent == nil {
		return root
	}
	return n.Parent
}

// keep is the filter rule: the agent.ls predicate, then the typed `/` filter.
func keep(opts Options, a *api.AgentRow) bool {
	if opts.Keep != nil && !opts.Keep.Keep(*a) {
		return false
	}
	return opts.Extra == nil || opts.Extra.Match(a.Path)
}

func count(ns []*Node) {
	for _, n := range ns {
		count(n.Children)
		n.Agents, n.Blocked, n.Usage = 0, 0, api.AgentUsage{}
		if n.Agent != nil {
			n.Agents = 1
			if n.Agent.Status == api.StatusBlocked {
				n.Blocked = 1
			}
			if u := n.Agent.Usage; u != nil {
				n.Usage = *u
			}
		}
		for _, c := range n.Children {
			n.Agents += c.Agents
			n.Blocked += c.Blocked
			n.Usage.Turns += c.Usage.Turns
			n.Usage.Tokens += c.Usage.Tokens
			n.Usage.CostUSD += c.Usage.CostUSD
			n.Usage.UnpricedTurns += c.Usage.UnpricedTurns
		}
	}
}

// sortNodes orders siblings: the "done" node last, then nodes holding a blocked agent
// first (the "needs a human" queue), then by segment.
func sortNodes(ns []*Node) {
	slices.SortStableFunc(ns, func(a, b *Node) int {
		return cmp.Or(
			cmp.Compare(boolInt(a.Kind == KindDone), boolInt(b.Kind == KindDone)),
			cmp.Compare(boolInt(b.Blocked > 0), boolInt(a.Blocked > 0)),
			cmp.Compare(a.Key, b.Key))
	})
	for _, n := range ns {
		sortNodes(n.Children)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Node returns the node with id.
func (t *Tree) Node(id string) *Node { return t.byID[id] }

// Row is one visible line of the tree: the node and its box-drawing prefix.
type Row struct {
	Node   *Node
	Prefix string
	Depth  int
}

// Rows flattens the tree depth-first, skipping the children of collapsed nodes.
func (t *Tree) Rows(collapsed map[string]bool) []Row {
	var out []Row
	var walk func(ns []*Node, indent string, depth int)
	walk = func(ns []*Node, indent string, depth int) {
		for i, n := range ns {
			last := i == len(ns)-1
			prefix, next := "", ""
			if depth > 0 {
				prefix, next = indent+"├─ ", indent+"│  "
				if last {
					prefix, next = indent+"└─ ", indent+"   "
				}
			}
			out = append(out, Row{Node: n, Prefix: prefix, Depth: depth})
			if len(n.Children) > 0 && !collapsed[n.ID] {
				walk(n.Children, next, depth+1)
			}
		}
	}
	walk(t.Roots, "", 0)
	return out
}

// Canonical is the tree as text for tests: one line per node, depth-indented, siblings
// purely by segment, nothing that depends on the clock.
func (t *Tree) Canonical() string {
	var b strings.Builder
	var walk func(ns []*Node, depth int)
	walk = func(ns []*Node, depth int) {
		ns = slices.Clone(ns)
		slices.SortFunc(ns, func(a, b *Node) int { return cmp.Compare(a.Key, b.Key) })
		for _, n := range ns {
			b.WriteString(strings.Repeat("  ", depth))
			b.WriteString(canonicalLine(n))
			b.WriteByte('\n')
			walk(n.Children, depth+1)
		}
	}
	walk(t.Roots, 0)
	return b.String()
}

func canonicalLine(n *Node) string {
	switch n.Kind {
	case KindLoop:
		return n.Key + " [loop " + n.Loop.Status + "]"
	case KindRun:
		return n.Key + " [run " + n.Run.Status + "]"
	case KindDone:
		return "done [" + strconv.Itoa(len(n.Children)) + " agents]"
	case KindHost:
		if !n.Remote.Reachable {
			return n.ID + " [unreachable]"
		}
		return n.ID
	case KindAgent:
		s := n.Key + " [" + string(n.Agent.Status) + "]"
		if n.Lineage != "" {
			s += " ↖ " + n.Lineage
		}
		return s
	}
	return n.Key
}

// AgentPaths lists the paths of the tree's agent nodes, sorted: what `agent ls` lists
// for the same query.
func (t *Tree) AgentPaths() []string {
	var out []string
	for _, n := range t.byID {
		if n.Agent != nil {
			out = append(out, n.Agent.Path)
		}
	}
	slices.Sort(out)
	return out
}

// Subtree returns the agent rows at and under n (n's own agent first).
func (n *Node) Subtree() []*api.AgentRow {
	var out []*api.AgentRow
	var walk func(*Node)
	walk = func(x *Node) {
		if x.Agent != nil {
			out = append(out, x.Agent)
		}
		for _, c := range x.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

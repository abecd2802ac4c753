package cli

import "github.com/orcr-go/orcr/socketapi"

// Internals for the black-box tests in package cli_test.
var (
	Verbs       = verbs
	VerbMethods = verbMethodsCopy
	LocalVerbs  = localVerbList
)

// Table rendering of agent ls.
type (
	LsRow      = socketapi.AgentRow
	LsWorktree = socketapi.AgentWorktree
)

var AskWorktreeNote = askWorktreeNote

var (
	RenderLs  = renderLs
	FormatAge = formatAge
)

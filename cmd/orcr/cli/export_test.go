package cli

import (
	"github.com/orcr-go/orcr/socketapi/api"
)

// Internals for the black-box tests in package cli_test.
var (
	Verbs       = verbs
	VerbMethods = verbMethodsCopy
	LocalVerbs  = localVerbList
)

// Table rendering of agent ls.
type (
	LsRow      = api.AgentRow
	LsWorktree = api.AgentWorktree
)

var AskWorktreeNote = askWorktreeNote

var (
	RenderLs  = renderLs
	FormatAge = formatAge
)

package cli

// Internals for the black-box tests in package cli_test.
var (
	Verbs       = verbs
	VerbMethods = verbMethodsCopy
	LocalVerbs  = localVerbList
)

// Table rendering of agent ls.
type LsRow = lsRow

var (
	RenderLs  = renderLs
	FormatAge = formatAge
)

package cli

// Internals for the black-box tests in package cli_test.
var (
	Verbs       = verbs
	VerbMethods = verbMethodsCopy
	LocalVerbs  = localVerbList
)

package api

// States of one part of a provider check (docs/protocol.md §5.38).
const (
	CheckOK      = "ok"
	CheckFailed  = "failed"
	CheckUnknown = "unknown"
)

// Provider kinds of provider.ls.
const (
	ProviderBuiltin  = "builtin"
	ProviderDeclared = "declared"
)

// ProviderLsRequest is provider.ls's params.
type ProviderLsRequest struct{}

// ProviderRow is one provider of provider.ls.
type ProviderRow struct {
	Name string `json:"name"`
	// builtin (compiled into orcr) or declared (providers.<name> of config.json).
	Kind string `json:"kind"`
	// Whether herdr's integration for it is installed.
	Herdr bool `json:"herdr"`
	// Whether the support rule needs herdr's integration (docs/providers.md §1, §11.2).
	NeedsHerdr bool `json:"needs_herdr"`
	// Whether agents of it can run: the support rule holds.
	Supported bool `json:"supported"`
}

// ProviderLsResult is provider.ls's result, sorted by name.
type ProviderLsResult struct {
	Providers []ProviderRow `json:"providers"`
}

// ProviderCheckRequest is provider.check's params.
type ProviderCheckRequest struct {
	// The provider: built in or declared.
	Name string `json:"name"`
	// Only the checks that start nothing: the command, its --version and --help, the
	// flags, the herdr layer.
	Static bool `json:"static,omitempty"`
}

// ProviderCheckPart is one part of a provider check.
type ProviderCheckPart struct {
	// command, version, help, flags, herdr, turn, answer or end.
	Part string `json:"part"`
	// ok, failed or unknown.
	State string `json:"state"`
	// What was found, or why it failed or is unknown.
	Reason string `json:"reason,omitempty"`
}

// ProviderCheckResult is provider.check's result.
type ProviderCheckResult struct {
	Name string `json:"name"`
	// No part failed.
	OK    bool                `json:"ok"`
	Parts []ProviderCheckPart `json:"parts"`
}

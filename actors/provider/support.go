package provider

import (
	"sort"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The two layers of a provider (docs/providers.md §1), as named in details.missing.
const (
	LayerOrcr  = "orcr"
	LayerHerdr = "herdr"
)

// FixText is details.fix of integration_missing for provider and the ordered list of
// missing layers (docs/providers.md §1.2). It is API: do not reword.
func FixText(provider string, missing []string) string {
	var orcr, hd bool
	for _, l := range missing {
		orcr = orcr || l == LayerOrcr
		hd = hd || l == LayerHerdr
	}
	notBuiltin := "provider `" + provider + "` is not built into this orcr release; built-in providers: " + joinList(builtins)
	switch {
	case orcr && hd:
		return notBuiltin + "; its Herdr integration is also not installed"
	case orcr:
		return notBuiltin
	case hd:
		return "run `herdr integration install " + provider + "` to install its Herdr integration"
	}
	return ""
}

// missingError is integration_missing {provider, missing, fix}.
func missingError(provider string, missing []string) *wire.Error {
	layers := "[" + joinList(missing) + "]"
	return wire.New(wire.IntegrationMissing,
		"provider `"+provider+"` is not fully supported: missing "+layers+" integration",
		"provider", provider, "missing", append([]string{}, missing...), "fix", FixText(provider, missing))
}

// CheckSupport is the support gate (docs/providers.md §1.2): nil when both layers exist,
// else integration_missing listing the missing layers in the order orcr, herdr.
// orcrHas says whether orcr has a module for name (see [Options.HasOrcr]);
// herdrInstalled is herdr's integration state per provider ([HerdrInstalled]). The
// mock, when orcr has it (it is allowed), bypasses the herdr layer.
func CheckSupport(name string, orcrHas bool, herdrInstalled map[string]bool) error {
	if name == Mock && orcrHas {
		return nil
	}
	var missing []string
	if !orcrHas {
		missing = append(missing, LayerOrcr)
	}
	if !herdrInstalled[name] {
		missing = append(missing, LayerHerdr)
	}
	if missing == nil {
		return nil
	}
	return missingError(name, missing)
}

// Support is the support gate of name under o (docs/providers.md §1.2): [CheckSupport]
// for claude, codex and the mock; a provider expressed through the contract (declared,
// or a built-in of §12) has its orcr layer and needs the herdr layer only with session
// herdr (§11.2).
func (o Options) Support(name string, herdrInstalled map[string]bool) error {
	spec, contract := contractSpec(name)
	if o.isDeclared(name) {
		spec, contract = o.Declared[name], true
	}
	if contract {
		if spec.NeedsHerdr() && !herdrInstalled[name] {
			return missingError(name, []string{LayerHerdr})
		}
		return nil
	}
	return CheckSupport(name, o.HasOrcr(name), herdrInstalled)
}

// Integrations is [Integrations] with o's declared providers (orcr true, herdr as
// herdr reports it), each entry's supported set by [Options.Support]: a provider
// without session herdr is supported without herdr's integration.
func (o Options) Integrations(herdrInstalled map[string]bool) map[string]Integration {
	m := make(map[string]Integration, len(herdrInstalled)+len(builtins))
	for p, ok := range herdrInstalled {
		if p != "" {
			m[p] = Integration{Orcr: IsBuiltin(p), Herdr: ok}
		}
	}
	for _, p := range builtins {
		m[p] = Integration{Orcr: true, Herdr: herdrInstalled[p]}
	}
	for p := range o.Declared {
		if o.isDeclared(p) {
			m[p] = Integration{Orcr: true, Herdr: herdrInstalled[p]}
		}
	}
	for p, in := range m {
		in.Supported = o.Support(p, herdrInstalled) == nil
		m[p] = in
	}
	return m
}

// HerdrInstalled turns parsed `herdr integration status` rows into provider →
// installed (current or outdated). nil rows (the command failed) give an empty map:
// every herdr layer absent.
func HerdrInstalled(rows []herdr.IntegrationState) map[string]bool {
	m := make(map[string]bool, len(rows))
	for _, r := range rows {
		if r.Target == "" {
			continue
		}
		m[r.Target] = m[r.Target] || r.Installed
	}
	return m
}

// Integration is one entry of server.status's integrations map.
type Integration struct {
	Orcr      bool `json:"orcr"`
	Herdr     bool `json:"herdr"`
	Supported bool `json:"supported"`
}

// Integrations is server.status's integrations map (docs/protocol.md §5.2): one entry per
// provider in the union of the keys of herdrInstalled and the built-ins, with orcr =
// built-in, herdr = herdrInstalled[p] and supported by the support rule.
func Integrations(herdrInstalled map[string]bool) map[string]Integration {
	return Options{}.Integrations(herdrInstalled)
}

// IntegrationNames returns the keys of an integrations map, sorted (the reported
// provider set of docs/providers.md §1.1).
func IntegrationNames(m map[string]Integration) []string {
	names := make([]string, 0, len(m))
	for p := range m {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}

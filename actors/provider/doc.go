// Package provider holds orcr's provider integration modules (docs/providers.md): for each
// coding-agent CLI orcr can run in a herdr pane — the built-ins claude and codex, and
// the test-only mock — the routing validation, the launch argv, the extra pane
// environment, the startup/submit recipe, the shutdown and interrupt recipes, the
// approve/deny and model-switch recipes of the remote stream and the completion
// tuning. It also holds the support gate (both the orcr and the herdr layer
// must exist, docs/providers.md §1) and the codex model catalogue with its cache (§4.1).
//
// The package is pure logic plus two small pieces of I/O: the codex app-server exchange
// behind [CodexCatalog] and nothing else. It contains no actors; the spawn pipeline,
// the delivery loop and the completion monitor read the recipes and tuning returned
// here and act on them.
//
// A [Provider] is obtained with [Lookup]. Its methods are safe for concurrent use.
package provider

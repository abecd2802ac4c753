// Package herdrschema embeds herdr socket API schemas as fixtures: protocol 20 (the one
// orcr is built against) and protocol 16 (the minimum the handshake accepts), both as
// herdr published them, and a protocol-22 document that is orcr's own construction
// (README.md in this directory). The herdr stand-in serves the one matching the
// protocol it plays for `herdr api schema --json`, and the tests validate every
// stand-in response against it.
package herdrschema

import _ "embed"

// Protocol20 is herdr-api.schema.json as herdr published it for protocol 20.
//
//go:embed herdr-api.schema.json
var Protocol20 []byte

// Protocol16 is the same schema as herdr published it for protocol 16.
//
//go:embed herdr-api.schema.v16.json
var Protocol16 []byte

// Protocol22 is NOT a file herdr published: it is [Protocol20] with protocol 22 and the
// additive agent.list field AgentInfo.completion_seq, built by orcr from changelog-level
// knowledge of herdr 0.9.x (README.md). Only a real herdr can confirm it.
//
//go:embed herdr-api.schema.v22.json
var Protocol22 []byte

// For returns the fixture of protocol p (16, 20 or 22), or nil for any other number.
func For(p int) []byte {
	switch p {
	case 16:
		return Protocol16
	case 20:
		return Protocol20
	case 22:
		return Protocol22
	}
	return nil
}

// Package herdrschema embeds herdr's published socket API schemas, unchanged, as
// fixtures: protocol 20 (the one orcr is built against) and protocol 16 (the minimum the
// handshake accepts). The herdr stand-in serves Protocol20 for `herdr api schema --json`,
// and the tests validate every stand-in response against it.
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

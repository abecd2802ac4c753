package wire

// Control frame kinds: written with seq 0, never stored. The event kinds and their
// payloads are the events table of the api package (api.Events).
const (
	KindServerStopping = "server_stopping"
	KindCursorExpired  = "cursor_expired"
)

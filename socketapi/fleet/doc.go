// Package fleet is orcr's fleet layer on NATS JetStream (docs/fleet.md): the embedded hub
// ([StartHub]), a member's connection ([Connect]), the publisher of its committed events
// into the ORCR_EVENTS stream ([Publisher], driven by the `fleet` actor of package
// actors), the API a member answers on orcr.api.<host> ([Serve]) and the fleet-wide
// calls of the CLI ([Member.Ls]). Only this package, and the server that wires it,
// import NATS.
package fleet

// Names on the NATS side (docs/fleet.md §1).
const (
	// Stream is the JetStream stream of every member's committed events.
	Stream = "ORCR_EVENTS"
	// MembersBucket is the JetStream KV bucket of members: host → MemberInfo.
	MembersBucket = "ORCR_MEMBERS"
	// SeenBucket is the JetStream KV bucket of each member's last view of its agents:
	// host → Seen, written every FleetSeenHeartbeat and after changes.
	SeenBucket = "ORCR_SEEN"
	// HubTokenName is the hub's generated credential under <home>/fleet (0600).
	HubTokenName = "hub.token"
	// MemberIDName is this home's member id under <home>/fleet.
	MemberIDName = "member.id"
	// CursorName is a member's publish cursor under <home>/fleet.
	CursorName = "publish.cursor"
	// HubURLName is where the hub writes the address it listens on, under <home>/fleet.
	HubURLName = "hub.url"
	// JetStreamDirName is the hub's JetStream store under <home>/fleet.
	JetStreamDirName = "jetstream"
)

// EventSubject is the subject a host's events are published on.
func EventSubject(host string) string { return "orcr.events." + host }

// APISubject is the request subject of a call from caller to host's API: the caller's
// host is the subject's last token, which the hub lets a member publish under its own
// host only (docs/fleet.md §3.1), so the member answering knows who calls.
func APISubject(host, caller string) string { return "orcr.api." + host + "." + caller }

// APICalls is the subject host subscribes to for its API: every caller's calls.
func APICalls(host string) string { return "orcr.api." + host + ".*" }

// InboxPrefix is the prefix of the reply subjects of a member's connections: the hub
// lets member host subscribe only below it, so no member reads another's answers.
func InboxPrefix(host string) string { return "_INBOX." + host }

// PingSubject is the subject a host answers a liveness probe on, at once and without
// the facade, so a call to a member that is gone or hung fails fast (docs/fleet.md §4).
func PingSubject(host string) string { return "orcr.ping." + host }

// MsgID is the Nats-Msg-Id of a host's event seq: JetStream drops a second publish of
// the same id within the stream's duplicate window.
func MsgID(host string, seq int64) string { return host + ":" + itoa(seq) }

// Package fleettest reads the fleet's stream for tests: which of a host's events it
// holds, in stream order, checked against their message ids (docs/fleet.md §5); and it
// starts a NATS server of a team's own for members to join ([NATS]).
package fleettest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/socketapi/fleet"
)

// StreamSeqs reads every event of host from the stream at url (with the token in
// tokenFile), in stream order; nil before the stream exists. A message whose id is not
// `<host>:<seq>` of its event fails the test.
func StreamSeqs(tb testing.TB, url, tokenFile, host string) []int64 {
	tb.Helper()
	return streamSeqs(tb, url, tokenFile, host)
}

// StreamSeqsTLS is [StreamSeqs] over TLS, trusting the certificate in caFile.
func StreamSeqsTLS(tb testing.TB, url, tokenFile, caFile, host string) []int64 {
	tb.Helper()
	return streamSeqs(tb, url, tokenFile, host, nats.RootCAs(caFile))
}

func streamSeqs(tb testing.TB, url, tokenFile, host string, opts ...nats.Option) []int64 {
	tb.Helper()
	js, done := Connect(tb, url, tokenFile, opts...)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, fleet.Stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{fleet.EventSubject(host)}})
	if err != nil {
		return nil // no stream yet
	}
	info, err := cons.Info(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var seqs []int64
	for n := info.NumPending; n > 0; {
		batch, err := cons.FetchNoWait(int(n))
		if err != nil {
			tb.Fatal(err)
		}
		for msg := range batch.Messages() {
			ev, err := fleet.DecodeEventMsg(msg.Data())
			if err != nil {
				tb.Fatal(err)
			}
			if want := fleet.MsgID(host, ev.Seq); msg.Headers().Get(jetstream.MsgIDHeader) != want {
				tb.Fatalf("event %d has msg id %q, want %q", ev.Seq, msg.Headers().Get(jetstream.MsgIDHeader), want)
			}
			seqs = append(seqs, ev.Seq)
			n--
		}
	}
	return seqs
}

// DeleteStream deletes the fleet's stream, as a hub that lost its store would have none.
func DeleteStream(tb testing.TB, url, tokenFile string) {
	tb.Helper()
	js, done := Connect(tb, url, tokenFile)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, fleet.Stream); err != nil {
		tb.Fatal(err)
	}
}

// Connect joins the fleet at url with the token in tokenFile (and opts); done closes
// the connection.
func Connect(tb testing.TB, url, tokenFile string, opts ...nats.Option) (js jetstream.JetStream, done func()) {
	tb.Helper()
	tok, err := fleet.ReadToken(tokenFile)
	if err != nil {
		tb.Fatal(err)
	}
	nc, err := nats.Connect(url, append([]nats.Option{nats.Token(tok)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	if js, err = jetstream.New(nc); err != nil {
		nc.Close()
		tb.Fatal(err)
	}
	return js, nc.Close
}

// Gapless reports whether seqs is exactly 1..head: every event once, in order.
func Gapless(seqs []int64, head int64) bool {
	if int64(len(seqs)) != head {
		return false
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			return false
		}
	}
	return true
}

// NATS starts a NATS server with JetStream on loopback that takes messages of at most
// maxPayload bytes, as an existing server a team runs might (NATS's default is 1 MiB),
// with a token it writes to a 0600 file. It returns the server's url and the file's
// path; the server stops when the test ends.
func NATS(tb testing.TB, maxPayload int32) (url, tokenFile string) {
	tb.Helper()
	dir := tb.TempDir()
	tok, err := fleet.EnsureToken(dir)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: filepath.Join(dir, "js"),
		Authorization: tok, MaxPayload: maxPayload, NoSigs: true, NoLog: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		tb.Fatal("the test's NATS server did not start")
	}
	tb.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv.ClientURL(), filepath.Join(dir, fleet.HubTokenName)
}

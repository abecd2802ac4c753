package fleet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The hub's own connections trust its certificate alone and check it against its first
// DNS name, else its first IP address (docs/fleet.md §6); a file that holds no
// certificate is config_invalid naming the key.
func TestHubTLS(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, dns []string, ips []net.IP) string {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: dns, IPAddresses: ips}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, name+".pem")
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		file, server string
	}{
		{write("ip", nil, []net.IP{net.ParseIP("10.1.2.3"), net.ParseIP("127.0.0.1")}), "10.1.2.3"},
		{write("dns", []string{"hub.example", "other.example"}, []net.IP{net.ParseIP("10.1.2.3")}), "hub.example"},
	} {
		c, err := hubTLS(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if c.ServerName != tc.server || c.RootCAs == nil {
			t.Errorf("%s: server name %q, want %q", tc.file, c.ServerName, tc.server)
		}
	}
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{junk, filepath.Join(dir, "missing.pem")} {
		if _, err := hubTLS(f); err == nil || err.(*wire.Error).Cause() != wire.CauseConfigInvalid {
			t.Errorf("hubTLS(%s): %v, want config_invalid", f, err)
		}
	}
}

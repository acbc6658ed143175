package sim

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
)

// GET /data/order/{id} verifies the L2 headers, so a read of an id that
// cannot exist proves the credentials (the daemon's start-up check): 404
// with the right ones, 401 with a wrong secret. After RevokeCredentials
// every authenticated call with the key is refused ("invalid api key"),
// and its orders stay.
func TestRevokeCredentials(t *testing.T) {
	env, _, orderID := traded(t)
	a := env.accs[0]
	probe := "0x" + strings.Repeat("0", 64)
	if _, err := env.client(exchange.WithAuthenticator(a.l2)).Order(bg, probe); !errors.Is(err, exchange.ErrNotFound) {
		t.Fatalf("probe with the right credentials: %v, want 404", err)
	}
	wrong := signer.Credentials{APIKey: a.creds.APIKey, Secret: env.accs[1].creds.Secret, Passphrase: a.creds.Passphrase}
	wl2, err := signer.NewL2(wrong, a.creds.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ae *exchange.APIError
	if _, err := env.client(exchange.WithAuthenticator(wl2)).Order(bg, probe); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized ||
		ae.Message != "unauthorized: invalid request signature" {
		t.Fatalf("probe with a wrong secret: %v, want 401 invalid request signature", err)
	}

	if env.ex.RevokeCredentials("no such key") {
		t.Error("revoked a key the exchange does not have")
	}
	if !env.ex.RevokeCredentials(a.creds.APIKey) {
		t.Fatal("the account's key was not revoked")
	}
	c := env.client(exchange.WithAuthenticator(a.l2))
	for name, call := range map[string]func() error{
		"read":   func() error { _, err := c.Order(bg, orderID); return err },
		"cancel": func() error { _, err := c.CancelOrder(bg, orderID); return err },
		"place": func() error {
			_, err := c.PlaceOrders(bg, []exchange.PlacementItem{a.order(t, env.openMarket(false), 0, exchange.Buy, "0.3", "10", exchange.GTC)})
			return err
		},
	} {
		if err := call(); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || ae.Message != "unauthorized: invalid api key" {
			t.Errorf("%s after the revocation: %v, want 401 invalid api key", name, err)
		}
	}
	if got := env.ex.OpenOrders(a.creds.APIKey); len(got) != 1 || !strings.EqualFold(got[0], orderID) {
		t.Errorf("open orders after the revocation: %v, want [%s]", got, orderID)
	}
	// The other account is not affected.
	b := env.accs[1]
	if _, err := env.client(exchange.WithAuthenticator(b.l2)).Order(bg, probe); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("another account's probe: %v, want 404", err)
	}
}

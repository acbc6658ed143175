package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/exchange"
)

// A CLOB address without /clob (`--clob-url http://127.0.0.1:PORT`) gets
// the simulator's 404, and the client's error says the address usually
// ends in /clob and which one to try.
func TestCLOBAddressWithoutPathHints(t *testing.T) {
	env := setup(t, 0)
	root := strings.TrimSuffix(env.urls.CLOB, "/clob")
	c, err := exchange.NewClient(exchange.Endpoints{CLOB: root})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Markets(context.Background(), "")
	if want := "it usually ends in /clob (try " + env.urls.CLOB + ")"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("GET /markets at %s: %v; want an error containing %q", root, err, want)
	}
	c, err = exchange.NewClient(exchange.Endpoints{CLOB: env.urls.CLOB})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Markets(context.Background(), ""); err != nil {
		t.Errorf("GET /markets at %s: %v", env.urls.CLOB, err)
	}
}

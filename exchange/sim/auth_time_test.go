package sim

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// TestAuthTimestampMessages: a timestamp outside the window is answered
// 401 with how far and which way it is off, never a saturated duration.
func TestAuthTimestampMessages(t *testing.T) {
	now := time.Unix(1750000000, 0)
	env := setup(t, 1, func(c *Config) { c.WallClock = func() time.Time { return now } })
	a := env.accs[0]
	body := `{"orderId":"0xab"}`
	for _, c := range []struct {
		name string
		ts   string
		want string
	}{
		{"31 s ahead", "1750000031", "unauthorized: request timestamp outside the freshness window: SVC_TIMESTAMP 1750000031 is 31s ahead of the server's clock, window 30s"},
		{"31 s behind", "1749999969", "SVC_TIMESTAMP 1749999969 is 31s behind the server's clock"},
		{"milliseconds", "1750000000000", "SVC_TIMESTAMP 1750000000000 is not in seconds (it reads as Unix milliseconds)"},
	} {
		h, err := a.l2.AuthHeaders(http.MethodDelete, "/order", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		h[exchange.HeaderTimestamp] = []string{c.ts} // the signature then fails, but freshness is checked first
		req, _ := http.NewRequest(http.MethodDelete, env.urls.CLOB+"/order", strings.NewReader(body))
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s, want 401 saying %q", c.name, resp.StatusCode, b, c.want)
		}
	}
}

package exchange

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
)

var t0 = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// testEnv is a loopback server that serves the three areas under the path
// prefixes /data, /catalog and /clob, and a client pointed at it.
type testEnv struct {
	t   *testing.T
	mux *http.ServeMux
	srv *httptest.Server
	clk *clocktest.Clock
	c   *Client
	ctx context.Context
}

// noJitter makes every backoff zero so that retries do not sleep.
func noJitter(time.Duration) time.Duration { return 0 }

// setup starts the server and a client with a fake clock, no-sleep retries
// and a fake authenticator; opts are applied after those defaults.
func setup(t *testing.T, opts ...Option) *testEnv {
	t.Helper()
	e := &testEnv{t: t, mux: http.NewServeMux(), clk: clocktest.New(t0)}
	e.srv = httptest.NewServer(e.mux)
	t.Cleanup(e.srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e.ctx = ctx
	base := []Option{
		WithHTTPClient(e.srv.Client()),
		WithClock(e.clk),
		WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: time.Second, Jitter: noJitter}),
		WithAuthenticator(&fakeAuth{}),
	}
	c, err := NewClient(e.endpoints(), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	e.c = c
	return e
}

func (e *testEnv) endpoints() Endpoints {
	return Endpoints{Data: e.srv.URL + "/data", Catalog: e.srv.URL + "/catalog/", CLOB: e.srv.URL + "/clob"}
}

// handle registers fn for "METHOD /prefix/path" and passes it the body.
func (e *testEnv) handle(pattern string, fn func(w http.ResponseWriter, r *http.Request, body []byte)) {
	e.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			e.t.Errorf("reading request body: %v", err)
		}
		fn(w, r, body)
	})
}

// autoAdvance moves the fake clock to each sleeper's deadline as soon as
// one sleeps, until the test ends.
func (e *testEnv) autoAdvance() {
	go func() {
		for e.clk.BlockUntil(e.ctx, 1) == nil {
			e.clk.AdvanceToNext()
		}
	}()
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// fakeAuth signs with sha256(method + path + body) so the server can check
// that the signature covers exactly what was sent.
type fakeAuth struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func fakeSig(method, path string, body []byte) string {
	h := sha256.Sum256([]byte(method + path + string(body)))
	return hex.EncodeToString(h[:])
}

func (a *fakeAuth) AuthHeaders(method, path string, body []byte) (http.Header, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, method+" "+path)
	if a.err != nil {
		return nil, a.err
	}
	h := http.Header{}
	h.Set(HeaderAddress, "0x0000000000000000000000000000000000000001")
	h.Set(HeaderAPIKey, "2f1c2f8b-6a5e-4b6e-9f1e-3c2d1b0a9f8e")
	h.Set(HeaderPassphrase, strings.Repeat("ab", 32))
	h.Set(HeaderTimestamp, "1717243200")
	h.Set(HeaderSignature, fakeSig(method, path, body))
	return h, nil
}

func TestNewClientValidation(t *testing.T) {
	tests := []struct {
		name string
		ep   Endpoints
		opts []Option
		ok   bool
	}{
		{"all three", Endpoints{"http://127.0.0.1:1/data", "https://catalog.example", "http://127.0.0.1:2"}, nil, true},
		{"clob only", Endpoints{CLOB: "http://127.0.0.1:2/"}, nil, true},
		{"none", Endpoints{}, nil, false},
		{"relative", Endpoints{CLOB: "/clob"}, nil, false},
		{"ftp", Endpoints{CLOB: "ftp://x"}, nil, false},
		{"no host", Endpoints{CLOB: "http://"}, nil, false},
		{"query", Endpoints{CLOB: "http://h/?a=1"}, nil, false},
		{"fragment", Endpoints{CLOB: "http://h/#f"}, nil, false},
		{"user info", Endpoints{CLOB: "http://u:p@h/"}, nil, false},
		{"bad url", Endpoints{CLOB: "http://h/%zz"}, nil, false},
		{"nil http client", Endpoints{CLOB: "http://h"}, []Option{WithHTTPClient(nil)}, false},
		{"nil clock", Endpoints{CLOB: "http://h"}, []Option{WithClock(nil)}, false},
		{"bad limits", Endpoints{CLOB: "http://h"}, []Option{WithLimits(Limits{})}, false},
		{"bad retry", Endpoints{CLOB: "http://h"}, []Option{WithRetry(RetryPolicy{})}, false},
		{"bad ua", Endpoints{CLOB: "http://h"}, []Option{WithUserAgent("a\nb")}, false},
		{"bad batch", Endpoints{CLOB: "http://h"}, []Option{WithMaxBatch(0)}, false},
		{"good options", Endpoints{CLOB: "http://h"}, []Option{WithUserAgent("x/1"), WithMaxBatch(5), WithObserver(Observer{}), WithLimits(DefaultLimits())}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.ep, tt.opts...)
			if (err == nil) != tt.ok {
				t.Fatalf("NewClient: err = %v, want ok %v", err, tt.ok)
			}
			if err != nil && strings.Contains(err.Error(), "u:p") {
				t.Errorf("error leaks user info: %v", err)
			}
			if c != nil && tt.name == "good options" && c.MaxBatch() != 5 {
				t.Errorf("MaxBatch = %d", c.MaxBatch())
			}
		})
	}
}

func TestAreaNotConfigured(t *testing.T) {
	c, err := NewClient(Endpoints{CLOB: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Trades(context.Background(), TradesParams{})
	if !errors.Is(err, ErrAreaNotConfigured) {
		t.Fatalf("err = %v, want ErrAreaNotConfigured", err)
	}
}

func TestUserAgentAndAccept(t *testing.T) {
	e := setup(t, WithUserAgent("mmbot-test/1"))
	e.handle("GET /clob/markets", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if ua := r.Header.Get("User-Agent"); ua != "mmbot-test/1" {
			t.Errorf("User-Agent = %q", ua)
		}
		if a := r.Header.Get("Accept"); a != "application/json" {
			t.Errorf("Accept = %q", a)
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			t.Errorf("GET sent Content-Type %q", ct)
		}
		reply(w, 200, `{"data":[],"next_cursor":"LTE="}`)
	})
	if _, err := e.c.Markets(e.ctx, ""); err != nil {
		t.Fatal(err)
	}
}

package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRegisterOnOwnRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.OrdersPlaced.Add(3)
	m.OrdersRejected.WithLabelValues("position_limit").Inc()
	m.KillSwitch.Set(1)
	if got := testutil.ToFloat64(m.OrdersPlaced); got != 3 {
		t.Fatalf("orders placed = %v", got)
	}
	if got := testutil.ToFloat64(m.OrdersRejected.WithLabelValues("position_limit")); got != 1 {
		t.Fatalf("rejected = %v", got)
	}
	if _, err := New(reg); err == nil {
		t.Fatal("registering twice on one registry succeeded")
	}
}

func TestNewRegistry(t *testing.T) {
	reg, m, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	m.LastCycle.Set(1.7e9)
	m.AuthFailures.WithLabelValues("401").Inc()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range fams {
		got[f.GetName()] = true
	}
	for _, name := range []string{"mmbot_cycle_last_success_timestamp_seconds", "mmbot_http_auth_failures_total",
		"go_goroutines", "process_start_time_seconds", "process_resident_memory_bytes"} {
		if !got[name] {
			t.Errorf("the daemon's registry has no %s", name)
		}
	}
	if got := testutil.ToFloat64(m.AuthFailures.WithLabelValues("401")); got != 1 {
		t.Errorf("auth failures 401 = %v", got)
	}
	// Each call makes its own registry: nothing is global.
	if _, _, err := NewRegistry(); err != nil {
		t.Fatalf("a second registry: %v", err)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServe(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Fills.Add(2)
	h := &Health{}
	addr, stop, err := Serve(context.Background(), "127.0.0.1:0", false, Handler(reg, h))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	base := "http://" + addr.String()
	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("healthz %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "starting") {
		t.Fatalf("readyz before ready %d %q", code, body)
	}
	h.SetReady(true, "")
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Fatalf("readyz after ready %d", code)
	}
	h.SetReady(false, "kill switch: drawdown")
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "drawdown") {
		t.Fatalf("readyz tripped %d %q", code, body)
	}
	code, body := get(t, base+"/metrics")
	if code != 200 || !strings.Contains(body, "mmbot_fills_total 2") {
		t.Fatalf("metrics %d: %s", code, body)
	}
}

func TestRefusesPublicAddress(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:9464"} {
		_, _, err := Serve(context.Background(), addr, false, http.NotFoundHandler())
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: err = %v, want ErrNotLoopback", addr, err)
		}
	}
	if _, _, err := Serve(context.Background(), "nonsense", false, http.NotFoundHandler()); err == nil {
		t.Error("bad address accepted")
	}
}

// A Route is served next to the built-in paths; JSON answers GET with the
// document, HEAD with its headers only, other methods with 405 and a
// failing build with 500.
func TestServeJSONRoute(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Version int    `json:"version"`
		Amount  string `json:"amount"`
	}
	var fail atomic.Bool // the handler runs on the server's goroutines
	var calls atomic.Int32
	status := JSON(func(ctx context.Context) (any, error) {
		calls.Add(1)
		if ctx == nil {
			return nil, errors.New("no context")
		}
		if fail.Load() {
			return nil, errors.New("loop not started")
		}
		return doc{Version: 1, Amount: "12.50"}, nil
	})
	addr, stop, err := Serve(context.Background(), "127.0.0.1:0", false, Handler(reg, &Health{}, Route{Path: "/status", Handler: status}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	base := "http://" + addr.String()

	resp, err := http.Get(base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET /status: %d %v", resp.StatusCode, resp.Header)
	}
	if want := "{\n  \"version\": 1,\n  \"amount\": \"12.50\"\n}\n"; string(body) != want {
		t.Fatalf("GET /status body %q, want %q", body, want)
	}

	req, _ := http.NewRequest(http.MethodHead, base+"/status", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) {
		t.Fatalf("HEAD /status: %d, length %d, want 200 and %d", resp.StatusCode, resp.ContentLength, len(body))
	}

	resp, err = http.Post(base+"/status", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST /status: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}

	fail.Store(true)
	if code, body := get(t, base+"/status"); code != 500 || !strings.Contains(body, "loop not started") {
		t.Fatalf("failing build: %d %q", code, body)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("build called %d times, want 3 (GET, HEAD, failing GET)", n)
	}
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz %d next to a route", code)
	}
}

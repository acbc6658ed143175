package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
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

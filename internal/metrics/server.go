package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Health tracks readiness for /readyz.
type Health struct {
	mu     sync.Mutex
	ready  bool
	reason string
}

// SetReady marks the daemon ready (reason empty) or not ready with a reason.
func (h *Health) SetReady(ready bool, reason string) {
	h.mu.Lock()
	h.ready, h.reason = ready, reason
	h.mu.Unlock()
}

// Ready returns the readiness and, when not ready, why.
func (h *Health) Ready() (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.ready && h.reason == "" {
		return false, "starting"
	}
	return h.ready, h.reason
}

// Handler serves /metrics from g, /healthz and /readyz from h.
func Handler(g prometheus.Gatherer, h *Health) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, why := h.Ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintf(w, "not ready: %s\n", why)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}

// ErrNotLoopback is returned by Serve for a non-loopback address when public
// listening was not allowed.
var ErrNotLoopback = errors.New("metrics: listen address is not loopback")

// Serve listens on addr and serves handler until ctx ends. It returns the
// bound address (useful with port 0) once listening, and runs the server in
// the background; the returned stop function shuts it down.
func Serve(ctx context.Context, addr string, allowPublic bool, handler http.Handler) (net.Addr, func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: listen address %q: %w", addr, err)
	}
	if !allowPublic && !isLoopback(host) {
		return nil, nil, fmt.Errorf("%w: %q (set metrics.allow_public = true to expose it)", ErrNotLoopback, addr)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}
	return ln.Addr(), stop, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
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

// Route is one more path that Handler serves, next to /metrics, /healthz
// and /readyz: the daemon adds /status this way, so that this package needs
// to know nothing of what the status holds.
type Route struct {
	Path    string
	Handler http.Handler
}

// Handler serves /metrics from g, /healthz and /readyz from h, and routes.
func Handler(g prometheus.Gatherer, h *Health, routes ...Route) http.Handler {
	mux := http.NewServeMux()
	for _, r := range routes {
		mux.Handle(r.Path, r.Handler)
	}
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

// JSON returns a handler that answers GET and HEAD with the JSON document
// that build returns for the request (indented, Content-Type
// application/json, never cached), 500 with the error when build fails or
// the document does not encode, and 405 to any other method. build gets the
// request's context.
func JSON(build func(ctx context.Context) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		doc, err := build(r.Context())
		var b []byte
		if err == nil {
			b, err = json.MarshalIndent(doc, "", "  ")
		}
		if err != nil {
			http.Error(w, fmt.Sprintf("status: %v", err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(append(b, '\n'))
	})
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

package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// Error texts of the areas (the order-book texts are the project's choice,
// see docs/simulator.md).
const (
	msgDBFailure     = "internal_error: unexpected database failure"
	msgInjected      = "internal_error: injected fault"
	msgRateLimited   = "too many requests: rate limit exceeded, retry after %d s"
	msgNotFound      = "not found"
	msgNotReady      = "service not ready"
	typeNotReady     = "service unavailable"
	typeInternal     = "internal error"
	typeTooMany      = "too many requests"
	maxRequestBody   = 1 << 20
	marketsPageSize  = 100
	builderPageSize  = 100
	maxTokensPerCall = 500
)

// Handler returns the exchange's HTTP handler (all three areas with the
// middleware: request log, IP allowlist, rate limits, faults). Start serves
// it; tests may mount it on their own server.
func (e *Exchange) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /data/trades", e.handleTrades)
	mux.HandleFunc("GET /data/closed-positions", e.handleClosedPositions)
	mux.HandleFunc("GET /data/holders", e.handleHolders)

	mux.HandleFunc("GET /catalog/markets/{id}", e.handleCatalogMarket)
	mux.HandleFunc("GET /catalog/events/{id}", e.handleEvent)
	mux.HandleFunc("GET /catalog/events/slug/{slug}", e.handleEventBySlug)
	mux.HandleFunc("GET /catalog/events", e.handleEvents)
	mux.HandleFunc("GET /catalog/series", e.handleSeries)
	mux.HandleFunc("GET /catalog/tags", e.handleTags)

	mux.HandleFunc("GET /clob/{$}", e.handleHealth)
	mux.HandleFunc("GET /clob/markets", e.handleMarkets)
	mux.HandleFunc("GET /clob/markets/{condition_id}", e.handleMarket)
	mux.HandleFunc("GET /clob/sampling-markets", e.handleSamplingMarkets)
	mux.HandleFunc("GET /clob/simplified-markets", e.handleSimplifiedMarkets)
	mux.HandleFunc("POST /clob/books", e.handleBooks)
	mux.HandleFunc("POST /clob/spreads", e.handleSpreads)
	mux.HandleFunc("GET /clob/data/order/{id}", e.handleGetOrder)
	mux.HandleFunc("POST /clob/orders", e.handlePlaceOrders)
	mux.HandleFunc("DELETE /clob/order", e.handleCancel)
	mux.HandleFunc("GET /clob/builder/trades", e.handleBuilderTrades)
	mux.HandleFunc("GET /clob/rewards/earnings", e.handleRewardEarnings) // extension: docs/simulator.md

	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		area, _ := splitArea(r.URL.Path)
		writeError(w, area, http.StatusNotFound, exchange.TypeNotFound, msgNotFound)
	})
	return e.middleware(mux)
}

// splitArea returns the area of a path and the path relative to it.
func splitArea(p string) (area, rel string) {
	for _, a := range []string{"data", "catalog", "clob"} {
		pre := "/" + a
		if p == pre {
			return a, "/"
		}
		if strings.HasPrefix(p, pre+"/") {
			return a, p[len(pre):]
		}
	}
	return "", p
}

// relPath returns the request's escaped path relative to its area, the
// path a client signs.
func relPath(r *http.Request) string {
	_, rel := splitArea(r.URL.EscapedPath())
	return rel
}

// clientIP is the host part of a remote address.
func clientIP(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	b := []byte(`{"error":"internal_error: encoding the response"}`)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
	} else {
		b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes an error in the area's shape: {"type","error"} for the
// catalog, {"error"} elsewhere.
func writeError(w http.ResponseWriter, area string, status int, typ, msg string) {
	if area == "catalog" {
		writeJSON(w, status, exchange.ErrorBody{Type: typ, Error: msg})
		return
	}
	writeJSON(w, status, exchange.ErrorBody{Error: msg})
}

// statusWriter records the status for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Hijack lets the drop fault reach the connection.
func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("sim: response writer cannot hijack")
	}
	return hj.Hijack()
}

func (e *Exchange) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		arrived, orders := e.cfg.WallClock(), new(int)
		r = r.WithContext(context.WithValue(r.Context(), ordersKey{}, orders))
		defer func() {
			rec := RequestRecord{Method: r.Method, Path: r.URL.Path, Time: arrived, Status: sw.status, Orders: *orders}
			e.reqlog.add(rec)
			if e.cfg.OnRequest != nil {
				e.cfg.OnRequest(rec)
			}
		}()
		area, rel := splitArea(r.URL.Path)
		ip := clientIP(r.RemoteAddr)
		if area == "data" && !e.allow.allowed(ip) {
			writeError(sw, area, http.StatusForbidden, "", exchange.MsgIPNotAllowlisted)
			return
		}
		if ok, wait := e.limiter.admit(ip, requestCosts(area, r.Method, rel), e.cfg.WallClock()); !ok {
			writeThrottled(sw, area, wait)
			return
		}
		if e.faults.stalled(r.Method, rel, e.cfg.WallClock()) {
			// Read the body (the server notices a closed connection only
			// once it has), then answer nothing until the client gives up.
			_, _ = io.Copy(io.Discard, http.MaxBytesReader(sw, r.Body, maxRequestBody))
			<-r.Context().Done()
			return
		}
		if e.faults.notReady() {
			w.Header().Set("Retry-After", "1")
			writeError(sw, area, http.StatusServiceUnavailable, typeNotReady, msgNotReady)
			return
		}
		kind, delay := e.faults.draw()
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch kind {
		case faultError:
			writeError(sw, area, http.StatusInternalServerError, typeInternal, msgInjected)
			return
		case faultDB:
			writeError(sw, area, http.StatusInternalServerError, typeInternal, msgDBFailure)
			return
		case faultDrop:
			dropAfterHalf(sw, r, next)
			return
		}
		r.Body = http.MaxBytesReader(sw, r.Body, maxRequestBody)
		next.ServeHTTP(sw, r)
	})
}

// writeThrottled answers 429 with Retry-After in the area's error shape.
func writeThrottled(w http.ResponseWriter, area string, wait time.Duration) {
	secs := retryAfterSeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, area, http.StatusTooManyRequests, typeTooMany, fmt.Sprintf(msgRateLimited, secs))
}

// bufferWriter captures a response.
type bufferWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.h }
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// dropAfterHalf handles the request fully, then sends the status line, the
// headers (with the full Content-Length) and half the body, and closes the
// connection.
func dropAfterHalf(sw *statusWriter, r *http.Request, next http.Handler) {
	bw := &bufferWriter{h: http.Header{}}
	r.Body = http.MaxBytesReader(nil, r.Body, maxRequestBody)
	next.ServeHTTP(bw, r)
	conn, rw, err := sw.Hijack()
	if err != nil {
		sw.status = http.StatusInternalServerError
		return
	}
	defer conn.Close()
	sw.status = bw.status
	body := bw.body.Bytes()
	fmt.Fprintf(rw, "HTTP/1.1 %d %s\r\n", bw.status, http.StatusText(bw.status))
	bw.h.Set("Content-Length", strconv.Itoa(len(body)))
	bw.h.Set("Connection", "close")
	_ = bw.h.Write(rw)
	_, _ = rw.WriteString("\r\n")
	_, _ = rw.Write(body[:len(body)/2])
	_ = rw.Flush()
}

// decodeBody reads a request body and decodes it exactly (decodeStrict):
// one JSON value, keys matched exactly, no duplicate and no unknown keys.
func decodeBody(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return decodeStrict(body, v)
}

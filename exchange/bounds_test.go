package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
)

// hugeOrder is a GET /data/order answer of about n bytes: one order with a
// long list of associated trades (a well-formed JSON body).
func hugeOrder(n int) string {
	var ids []string
	for size := 0; size < n; size += 70 {
		ids = append(ids, fmt.Sprintf(`"0x%064x"`, size))
	}
	return `{"order":{"id":"0x1","status":"LIVE","originalSize":"1","sizeMatched":"0","price":"0.5","associateTrades":[` + strings.Join(ids, ",") + `]}}`
}

// TestAnswerOverBoundIsRefused: a GET /data/order answer over the
// endpoint's bound (one order: 256 KiB) is refused with an error naming the
// endpoint and the bound, whether the server declares its length or
// streams it; nothing is decoded and the call is not retried. An answer
// within the bound decodes.
func TestAnswerOverBoundIsRefused(t *testing.T) {
	bound, ok := MaxAnswerBytes("GET /data/order/{id}", 0)
	if !ok || bound != 256*kib {
		t.Fatalf("bound of GET /data/order/{id} = %d, %v", bound, ok)
	}
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			e := setup(t)
			var hits atomic.Int64
			body := hugeOrder(2 * mib)
			e.handle("GET /clob/data/order/{id}", func(w http.ResponseWriter, r *http.Request, _ []byte) {
				hits.Add(1)
				if r.PathValue("id") == "small" {
					reply(w, 200, hugeOrder(200*kib))
					return
				}
				if !chunked {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				w.WriteHeader(200)
				for i := 0; i < len(body); i += 32 * kib {
					_, _ = w.Write([]byte(body[i:min(i+32*kib, len(body))]))
					if f, ok := w.(http.Flusher); ok && chunked {
						f.Flush()
					}
				}
			})
			o, err := e.c.Order(e.ctx, "0xbig")
			var be *BodyTooLargeError
			if !errors.As(err, &be) || !errors.Is(err, ErrBodyTooLarge) || o != nil {
				t.Fatalf("order decoded: %v, err = %v; want *BodyTooLargeError", o != nil, err)
			}
			msg := err.Error()
			if be.Limit != bound || be.Endpoint != "GET /data/order/{id}" || !strings.Contains(msg, "GET /data/order/{id}") ||
				!strings.Contains(msg, strconv.FormatInt(bound, 10)) {
				t.Errorf("error %q (%+v) does not name the endpoint and the bound %d", msg, be, bound)
			}
			if !chunked && be.ContentLength != int64(len(body)) {
				t.Errorf("ContentLength = %d, want the declared %d", be.ContentLength, len(body))
			}
			if hits.Load() != 1 {
				t.Errorf("%d attempts: an oversized answer was retried", hits.Load())
			}
			if o, err := e.c.Order(e.ctx, "small"); err != nil || len(o.AssociateTrades) < 2000 {
				t.Fatalf("an answer within the bound: %v", err)
			}
		})
	}
}

// honestBook is the largest honest book: every price of the finest grid
// holds a level (bids below 0.5, asks from 0.5), each of the largest size.
func honestBook(token string) OrderBook {
	b := OrderBook{Market: "0x" + strings.Repeat("ab", 32), AssetID: token, Timestamp: "1717243200000", Hash: strings.Repeat("f", 40),
		MinOrderSize: decimal.RequireFromString("1000000"), TickSize: decimal.RequireFromString("0.0001"),
		LastTradePrice: decimal.RequireFromString("0.5")}
	size := decimal.RequireFromString("1000000000.123456")
	for p := 1; p <= BookMaxLevels; p++ {
		l := PriceLevel{Price: decimal.New(int64(p), -4), Size: size}
		if p < 5000 {
			b.Bids = append(b.Bids, l)
		} else {
			b.Asks = append(b.Asks, l)
		}
	}
	return b
}

// TestBooksBoundGrowsWithTokens: POST /books is bounded by the tokens asked
// for. The largest honest answer for two tokens decodes; an answer of three
// such books for two tokens is refused naming the endpoint, the bound and
// the two items.
func TestBooksBoundGrowsWithTokens(t *testing.T) {
	tokens := []string{"1" + strings.Repeat("2", 76), "3" + strings.Repeat("4", 76)}
	honest, err := json.Marshal([]OrderBook{honestBook(tokens[0]), honestBook(tokens[1])})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := json.Marshal([]OrderBook{honestBook(tokens[0]), honestBook(tokens[1]), honestBook("x")})
	if err != nil {
		t.Fatal(err)
	}
	bound, _ := MaxAnswerBytes("POST /books", 2)
	if int64(len(honest)) > bound || int64(len(extra)) <= bound {
		t.Fatalf("bound %d for two books: honest answer %d bytes, three books %d", bound, len(honest), len(extra))
	}
	e := setup(t)
	answer := honest
	e.handle("POST /clob/books", func(w http.ResponseWriter, _ *http.Request, _ []byte) { reply(w, 200, string(answer)) })
	books, err := e.c.Books(e.ctx, tokens)
	if err != nil || len(books) != 2 || len(books[0].Bids)+len(books[0].Asks) != BookMaxLevels {
		t.Fatalf("the largest honest answer: %d books, err %v", len(books), err)
	}
	answer = extra
	_, err = e.c.Books(e.ctx, tokens)
	var be *BodyTooLargeError
	if !errors.As(err, &be) || be.Endpoint != "POST /books" || be.Limit != bound || be.Items != 2 ||
		!strings.Contains(err.Error(), "POST /books") || !strings.Contains(err.Error(), "for 2 items") {
		t.Fatalf("err = %v, want a *BodyTooLargeError for POST /books of 2 items, bound %d", err, bound)
	}
}

// TestErrorBodyIsCut: a 500 with a body of megabytes is still the server
// error it says (retried as one), its body cut to the error bound.
func TestErrorBodyIsCut(t *testing.T) {
	e := setup(t)
	var hits atomic.Int64
	e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		hits.Add(1)
		reply(w, 500, strings.Repeat("x", 4*mib))
	})
	_, err := e.c.Markets(e.ctx, "")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 500 || !errors.Is(err, ErrServer) || len(ae.Body) > 4096+3 {
		t.Fatalf("err = %v", err)
	}
	if hits.Load() != 3 {
		t.Errorf("%d attempts, want 3 (a 500 is retried)", hits.Load())
	}
}

// TestAnswerBoundsTable pins every endpoint's bound (docs/protocol.md,
// "Answer bounds", lists the same numbers).
func TestAnswerBoundsTable(t *testing.T) {
	want := map[string]struct {
		items int
		bytes int64
	}{
		"GET /trades":                 {200, 1*kib + 200*4*kib},
		"GET /closed-positions":       {50, 1*kib + 50*4*kib},
		"GET /holders":                {2 * 101, 1*kib + 202*2*kib},
		"GET /markets/{id}":           {0, 32*kib + 16*8*kib},
		"GET /events/{id}":            {0, 64*kib + 256*32*kib},
		"GET /events/slug/{slug}":     {0, 64*kib + 256*32*kib},
		"GET /series":                 {100, 1*kib + 100*64*kib},
		"GET /tags":                   {100, 1*kib + 100*kib},
		"GET /events":                 {100, 1*kib + 100*64*kib},
		"GET /markets":                {0, 1000*16*kib + 1*kib},
		"GET /markets/{condition_id}": {0, 256 * kib},
		"GET /sampling-markets":       {0, 1000*16*kib + 1*kib},
		"GET /simplified-markets":     {0, 1000*16*kib + 1*kib},
		"POST /books":                 {50, 1*kib + 50*(9999*64+4*kib)},
		"POST /spreads":               {50, 1*kib + 50*256},
		"GET /data/order/{id}":        {0, 256 * kib},
		"POST /orders":                {15, 1*kib + 15*2*kib},
		"DELETE /order":               {0, 16 * kib},
		"GET /builder/trades":         {0, 1000*16*kib + 1*kib},
	}
	for i := range endpointSpecs {
		s := &endpointSpecs[i]
		if s.answer.fixed <= 0 {
			t.Errorf("%s has no answer bound", s.Name())
		}
	}
	for ep, w := range want {
		key := ep
		if ep == "GET /markets/{id}" || strings.HasPrefix(ep, "GET /events") || ep == "GET /series" || ep == "GET /tags" {
			key = "catalog " + ep
		}
		got, ok := MaxAnswerBytes(key, w.items)
		if !ok || got != w.bytes {
			t.Errorf("MaxAnswerBytes(%q, %d) = %d, %v; want %d", key, w.items, got, ok, w.bytes)
		}
		if got > DefaultMaxBody {
			t.Errorf("%s: bound %d over the ceiling", ep, got)
		}
	}
}

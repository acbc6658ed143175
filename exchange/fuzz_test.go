package exchange

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// FuzzDecodeResponses feeds arbitrary bytes to the decoder of every
// response type: no panic, and whatever decodes re-encodes to a fixed point
// (encode, decode, encode gives the same bytes).
func FuzzDecodeResponses(f *testing.F) {
	for _, tc := range typeCases {
		b, err := os.ReadFile(filepath.Join("testdata", "types", tc.name+".in.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"market":"0xabc1","asset_id":"7111","timestamp":"1726043102123","bids":[{"price":"0.48","size":"120"}],"asks":[],"min_order_size":"","tick_size":"","last_trade_price":""}]`))
	for _, s := range []string{`{}`, `[]`, `null`, `{"order":null}`, `{"tokens":null,"market_id":1}`, `[{"size":"x"}]`, `{"data":[{"rewards":{"rates":[{}]}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tc := range typeCases {
			v := tc.new()
			if err := json.Unmarshal(data, v); err != nil {
				continue
			}
			first, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s: marshal after decode: %v", tc.name, err)
			}
			again := tc.new()
			if err := json.Unmarshal(first, again); err != nil {
				t.Fatalf("%s: own encoding %s does not decode: %v", tc.name, first, err)
			}
			second, err := json.Marshal(again)
			if err != nil || !bytes.Equal(first, second) {
				t.Fatalf("%s: not a fixed point:\n%s\n%s", tc.name, first, second)
			}
		}
		// books: the tolerant decoder reads what the plain one reads, the same
		var plain []OrderBook
		books, err := decodeBooks(data)
		if json.Unmarshal(data, &plain) == nil {
			a, _ := json.Marshal(plain)
			b, _ := json.Marshal(books)
			if err != nil || !bytes.Equal(a, b) {
				t.Fatalf("decodeBooks %s, %v; plain %s", b, err, a)
			}
		}
		// builder trades accept both shapes and never panic
		if p, err := decodeBuilderTrades(data, "MA=="); err == nil && p.NextCursor == "" && len(p.Data) > 0 && data[0] == '[' {
			t.Fatalf("bare array page without a next cursor")
		}
	})
}

// FuzzAPIError: any status, body and Retry-After make an error whose
// message is bounded and quotes at most the start of the body.
func FuzzAPIError(f *testing.F) {
	f.Add(404, []byte(`{"type":"not found error","error":"id not found"}`), "")
	f.Add(429, []byte(`{"error":"slow"}`), "3")
	f.Add(502, []byte(`<html>`), "Sat, 01 Jun 2024 12:00:30 GMT")
	f.Add(500, []byte(`{"error":"internal_err`), "-1")
	f.Add(200, []byte{0xff, 0xfe}, "x")
	f.Fuzz(func(t *testing.T, status int, body []byte, retryAfter string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		e := newAPIError(AreaData, "GET /trades", status, h, body, t0, DefaultMaxRetryAfter)
		msg := e.Error()
		if len(e.Body) > 4096+3 || e.RetryAfter < 0 || e.RetryAfter > DefaultMaxRetryAfter ||
			e.RetryAfterAsked < e.RetryAfter || e.RetryAfterAsked > retryAfterCeiling {
			t.Fatalf("bad error %+v", e)
		}
		// the quoted body start is at most bodyQuote bytes, each escaped
		// to at most 4 characters
		if e.Message == "" && e.Type == "" && len(msg) > 4*(bodyQuote+3)+200 {
			t.Fatalf("message of %d bytes", len(msg))
		}
		for _, s := range allSentinels {
			_ = e.Is(s)
		}
	})
}

// FuzzTradesParams: Validate and encode never panic; an accepted set
// encodes to a query that parses back to itself and obeys the rules.
func FuzzTradesParams(f *testing.F) {
	f.Add(100, 0, true, "CASH", "1.5", "0xa,0xb", "0xu", "BUY", uint8(0xff))
	f.Add(10001, -1, false, "cash", "-1", ",", "", "buy", uint8(0))
	f.Add(0, 10000, true, "TOKENS", "0", "x", "u", "SELL", uint8(0x3))
	f.Fuzz(func(t *testing.T, limit, offset int, taker bool, ftype, famount, markets, user, side string, set uint8) {
		p := TradesParams{FilterType: ftype, User: user, Side: Side(side)}
		if set&1 != 0 {
			p.Limit = &limit
		}
		if set&2 != 0 {
			p.Offset = &offset
		}
		if set&4 != 0 {
			p.TakerOnly = &taker
		}
		if d, err := decimal.NewFromString(famount); err == nil && set&8 != 0 {
			p.FilterAmount = &d
		}
		if markets != "" {
			p.Market = splitComma(markets)
		}
		q, err := p.encode()
		if (err == nil) != (p.Validate() == nil) {
			t.Fatal("Validate and encode disagree")
		}
		if err != nil {
			return
		}
		checkRoundTrip(t, q)
		checkIntParam(t, q, "limit", 0, TradesMaxLimit)
		checkIntParam(t, q, "offset", 0, TradesMaxOffset)
		if ft := q.Get("filterType"); ft != "" && (ft != FilterCash && ft != FilterTokens || q.Get("filterAmount") == "") {
			t.Fatalf("accepted filterType %q with amount %q", ft, q.Get("filterAmount"))
		}
		if s := q.Get("side"); s != "" && s != "BUY" && s != "SELL" {
			t.Fatalf("accepted side %q", s)
		}
	})
}

func FuzzClosedPositionsParams(f *testing.F) {
	f.Add("0xu", "title", 10, 0, "REALIZEDPNL", "DESC", "0xa", uint8(3))
	f.Add("", "", 51, 100001, "x", "asc", ",", uint8(3))
	f.Fuzz(func(t *testing.T, user, title string, limit, offset int, sortBy, dir, markets string, set uint8) {
		p := ClosedPositionsParams{User: user, Title: title, SortBy: sortBy, SortDirection: dir}
		if set&1 != 0 {
			p.Limit = &limit
		}
		if set&2 != 0 {
			p.Offset = &offset
		}
		if markets != "" {
			p.Market = splitComma(markets)
		}
		q, err := p.encode()
		if (err == nil) != (p.Validate() == nil) {
			t.Fatal("Validate and encode disagree")
		}
		if err != nil {
			return
		}
		checkRoundTrip(t, q)
		checkIntParam(t, q, "limit", 0, ClosedPositionsMaxLimit)
		checkIntParam(t, q, "offset", 0, ClosedPositionsMaxOffset)
		if q.Get("user") == "" || utf8.RuneCountInString(q.Get("title")) > 100 {
			t.Fatalf("accepted %v", q)
		}
	})
}

func FuzzHoldersAndListParams(f *testing.F) {
	f.Add("0xa,0xb", 100, "1", 100, 0, uint8(0xff))
	f.Add("", -1, "-2", 0, -1, uint8(0xff))
	f.Add("x", 501, "0", 501, 1<<40, uint8(0xff))
	f.Fuzz(func(t *testing.T, markets string, hlimit int, minBal string, limit, offset int, set uint8) {
		h := HoldersParams{Market: splitComma(markets)}
		if set&1 != 0 {
			h.Limit = &hlimit
		}
		if d, err := decimal.NewFromString(minBal); err == nil && set&2 != 0 {
			h.MinBalance = &d
		}
		if q, err := h.encode(); err == nil {
			checkRoundTrip(t, q)
			checkIntParam(t, q, "limit", 0, HoldersMaxLimit)
			if q.Get("market") == "" {
				t.Fatal("accepted holders without market")
			}
		}
		l := ListParams{}
		e := EventsParams{}
		if set&4 != 0 {
			l.Limit, e.Limit = &limit, &limit
		}
		if set&8 != 0 {
			l.Offset, e.Offset = &offset, &offset
		}
		for _, enc := range []encoder{&l, &e} {
			q, err := enc.encode()
			if (err == nil) != (enc.Validate() == nil) {
				t.Fatal("Validate and encode disagree")
			}
			if err != nil {
				continue
			}
			checkRoundTrip(t, q)
			checkIntParam(t, q, "limit", 1, CatalogMaxLimit)
			checkIntParam(t, q, "offset", 0, int(^uint(0)>>1))
		}
	})
}

func FuzzCursor(f *testing.F) {
	for _, s := range []string{"", "MA==", "LTE=", "Mg==", "!!", "MTAwMDAwMDAwMDAwMDAwMDAwMDAwMA=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		off, ok := DecodeCursor(c)
		if !ok {
			return
		}
		if back, ok := DecodeCursor(EncodeCursor(off)); !ok || back != off {
			t.Fatalf("%q → %d → %q → %d", c, off, EncodeCursor(off), back)
		}
	})
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func checkRoundTrip(t *testing.T, q url.Values) {
	t.Helper()
	back, err := url.ParseQuery(q.Encode())
	if err != nil {
		t.Fatalf("query %q does not parse: %v", q.Encode(), err)
	}
	if len(q) == 0 && len(back) == 0 {
		return
	}
	if !reflect.DeepEqual(back, q) {
		t.Fatalf("query %v parses back as %v", q, back)
	}
}

func checkIntParam(t *testing.T, q url.Values, name string, lo, hi int) {
	t.Helper()
	v := q.Get(name)
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		t.Fatalf("accepted %s=%q outside [%d, %d]", name, v, lo, hi)
	}
}

package exchange

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
)

// endpointCase is one endpoint called through the client: what the server
// must receive, what it answers, and a check of the decoded result.
type endpointCase struct {
	name      string
	pattern   string     // mux pattern the request must hit
	path      string     // the exact escaped path expected, prefix included
	query     url.Values // the exact query expected (nil: none)
	body      string     // the exact body expected ("" for none)
	auth      bool       // SVC_ headers expected
	respond   string
	call      func(ctx context.Context, c *Client) (any, error)
	check     func(t *testing.T, got any)
	signsPath string // the path the Authenticator must be given
}

func endpointCases() []endpointCase {
	d := decimal.RequireFromString
	return []endpointCase{
		{
			name: "trades", pattern: "GET /data/trades", path: "/data/trades",
			query: url.Values{"limit": {"0"}, "offset": {"10000"}, "takerOnly": {"false"}, "filterType": {"CASH"}, "filterAmount": {"2.5"},
				"market": {"0xa,0xb"}, "user": {"0xu"}, "side": {"SELL"}},
			respond: `[{"proxyWallet":"0xu","side":"SELL","size":1,"price":0.4,"timestamp":5}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Trades(ctx, TradesParams{Limit: Ptr(0), Offset: Ptr(10000), TakerOnly: Ptr(false), FilterType: FilterCash,
					FilterAmount: Ptr(d("2.5")), Market: []string{"0xa", "0xb"}, User: "0xu", Side: Sell})
			},
			check: func(t *testing.T, got any) {
				tr := got.([]Trade)
				if len(tr) != 1 || tr[0].Side != Sell || !tr[0].Price.Equal(d("0.4")) || tr[0].Timestamp != 5 {
					t.Errorf("got %+v", tr)
				}
			},
		},
		{
			name: "trades no params", pattern: "GET /data/trades", path: "/data/trades", respond: `[]`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Trades(ctx, TradesParams{}) },
			check: func(t *testing.T, got any) {
				if tr := got.([]Trade); len(tr) != 0 {
					t.Errorf("got %+v", tr)
				}
			},
		},
		{
			name: "closed positions", pattern: "GET /data/closed-positions", path: "/data/closed-positions",
			query: url.Values{"user": {"0xu"}, "market": {"0xa"}, "title": {"rain & snow"}, "limit": {"50"}, "offset": {"0"},
				"sortBy": {"TIMESTAMP"}, "sortDirection": {"ASC"}},
			respond: `[{"proxyWallet":"0xu","realizedPnl":-1.5,"redeemable":true,"endDate":"2024-06-30T00:00:00Z"}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ClosedPositions(ctx, ClosedPositionsParams{User: "0xu", Market: []string{"0xa"}, Title: "rain & snow",
					Limit: Ptr(50), Offset: Ptr(0), SortBy: SortTimestamp, SortDirection: SortAsc})
			},
			check: func(t *testing.T, got any) {
				cp := got.([]ClosedPosition)
				if len(cp) != 1 || !cp[0].RealizedPnl.Equal(d("-1.5")) || !cp[0].Redeemable {
					t.Errorf("got %+v", cp)
				}
			},
		},
		{
			name: "holders", pattern: "GET /data/holders", path: "/data/holders",
			query:   url.Values{"market": {"0xa,0xb"}, "limit": {"500"}, "minBalance": {"0"}},
			respond: `[{"token":"0xa:0","holders":[{"proxyWallet":"0x1","amount":10.5,"outcomeIndex":0}]}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Holders(ctx, HoldersParams{Market: []string{"0xa", "0xb"}, Limit: Ptr(500), MinBalance: Ptr(decimal.Zero)})
			},
			check: func(t *testing.T, got any) {
				hg := got.([]HolderGroup)
				if len(hg) != 1 || len(hg[0].Holders) != 1 || !hg[0].Holders[0].Amount.Equal(d("10.5")) {
					t.Errorf("got %+v", hg)
				}
			},
		},
		{
			name: "catalog market", pattern: "GET /catalog/markets/{id}", path: "/catalog/markets/0xabc%2F1",
			query:   url.Values{"creator": {"site-1"}},
			respond: `{"id":"512","conditionId":"0xabc/1","outcomes":"[\"Yes\",\"No\"]","events":[{"id":"90"}]}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.CatalogMarket(ctx, "0xabc/1", "site-1") },
			check: func(t *testing.T, got any) {
				m := got.(*CatalogMarket)
				if o, _ := m.Outcomes(); m.ID != "512" || len(o) != 2 || len(m.Events) != 1 {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "event", pattern: "GET /catalog/events/{id}", path: "/catalog/events/90",
			respond: `{"id":"90","title":"Weather","tags":[{"id":"1","slug":"weather"}],"markets":[{"id":"512"}],"eventMetadata":{"a":1}}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Event(ctx, 90, "") },
			check: func(t *testing.T, got any) {
				ev := got.(*Event)
				if ev.ID != "90" || len(ev.Tags) != 1 || len(ev.Markets) != 1 || string(ev.EventMetadata) != `{"a":1}` {
					t.Errorf("got %+v", ev)
				}
			},
		},
		{
			name: "event by slug", pattern: "GET /catalog/events/slug/{slug}", path: "/catalog/events/slug/will-it-rain",
			query: url.Values{"creator": {"0xc"}}, respond: `{"id":"90","slug":"will-it-rain"}`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.EventBySlug(ctx, "will-it-rain", "0xc") },
			check: func(t *testing.T, got any) {
				if ev := got.(*Event); ev.Slug != "will-it-rain" {
					t.Errorf("got %+v", ev)
				}
			},
		},
		{
			name: "series", pattern: "GET /catalog/series", path: "/catalog/series",
			query: url.Values{"limit": {"1"}, "offset": {"7"}, "creator": {"0xc"}}, respond: `[{"id":"7","events":[{"id":"90"}]}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Series(ctx, ListParams{Limit: Ptr(1), Offset: Ptr(7), Creator: "0xc"})
			},
			check: func(t *testing.T, got any) {
				if s := got.([]Series); len(s) != 1 || len(s[0].Events) != 1 {
					t.Errorf("got %+v", s)
				}
			},
		},
		{
			name: "tags", pattern: "GET /catalog/tags", path: "/catalog/tags",
			query: url.Values{"limit": {"500"}}, respond: `[{"id":"1","label":"Weather","requiresTranslation":true}]`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Tags(ctx, ListParams{Limit: Ptr(500)}) },
			check: func(t *testing.T, got any) {
				if tg := got.([]Tag); len(tg) != 1 || !tg[0].RequiresTranslation {
					t.Errorf("got %+v", tg)
				}
			},
		},
		{
			name: "events", pattern: "GET /catalog/events", path: "/catalog/events",
			query: url.Values{"limit": {"10"}, "offset": {"20"}, "active": {"true"}, "closed": {"false"}, "archived": {"false"},
				"tag": {"weather"}, "tag_id": {"0"}, "tag_slug": {"wx"}, "series_slug": {"daily"}, "slug": {"rain"}, "order": {"startDate"},
				"ascending": {"true"}, "creator": {"0xc"}},
			respond: `[{"id":"90","tags":[]}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Events(ctx, EventsParams{Limit: Ptr(10), Offset: Ptr(20), Active: Ptr(true), Closed: Ptr(false), Archived: Ptr(false),
					Tag: "weather", TagID: Ptr(int64(0)), TagSlug: "wx", SeriesSlug: "daily", Slug: "rain", Order: "startDate", Ascending: Ptr(true), Creator: "0xc"})
			},
			check: func(t *testing.T, got any) {
				if ev := got.([]Event); len(ev) != 1 || ev[0].ID != "90" {
					t.Errorf("got %+v", ev)
				}
			},
		},
		{
			name: "markets", pattern: "GET /clob/markets", path: "/clob/markets", query: url.Values{"next_cursor": {"MA=="}},
			respond: `{"data":[{"condition_id":"0xa","minimum_tick_size":0.01,"tokens":[{"token_id":"1","outcome":"Yes","price":0.5}]}],"next_cursor":"MQ==","limit":1,"count":1}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Markets(ctx, FirstCursor) },
			check: func(t *testing.T, got any) {
				p := got.(*MarketsPage)
				if len(p.Data) != 1 || p.NextCursor != "MQ==" || p.Limit != 1 || !p.Data[0].MinimumTickSize.Equal(d("0.01")) {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "market summary shape", pattern: "GET /clob/markets/{id}", path: "/clob/markets/0xa",
			respond: `{"condition_id":"0xa","status":"active","market_id":3,"assets_ids":["1","2"],"outcomes":["Yes","No"],"event":{"id":"9"},"raw_metadata":{}}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Market(ctx, "0xa") },
			check: func(t *testing.T, got any) {
				m := got.(*MarketDetail)
				if m.Shape() != ShapeSummary || m.MarketID != 3 || m.Event.ID != "9" {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "market merged shape", pattern: "GET /clob/markets/{id}", path: "/clob/markets/0xa",
			respond: `{"condition_id":"0xa","status":"active","market_id":3,"minimum_tick_size":0.001,"accepting_orders":true,"rewards":{"min_size":10}}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Market(ctx, "0xa") },
			check: func(t *testing.T, got any) {
				m := got.(*MarketDetail)
				if m.Shape() != ShapeMerged || !m.Book.MinimumTickSize.Equal(d("0.001")) || !m.Book.Rewards.MinSize.Equal(d("10")) || m.Book.ConditionID != "0xa" {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "sampling markets", pattern: "GET /clob/sampling-markets", path: "/clob/sampling-markets", query: url.Values{"next_cursor": {"NQ=="}},
			respond: `{"data":[{"condition_id":"0xa","description":"d","raw_metadata":{"x":1}}],"next_cursor":"LTE="}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.SamplingMarkets(ctx, "NQ==") },
			check: func(t *testing.T, got any) {
				if p := got.(*SummariesPage); len(p.Data) != 1 || p.Data[0].Description != "d" || p.NextCursor != EndCursor {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "simplified markets", pattern: "GET /clob/simplified-markets", path: "/clob/simplified-markets",
			respond: `{"data":[{"condition_id":"0xa","status":"closed"}],"next_cursor":""}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.SimplifiedMarkets(ctx, "") },
			check: func(t *testing.T, got any) {
				if p := got.(*SummariesPage); len(p.Data) != 1 || p.Data[0].Status != MarketStatusClosed {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "books", pattern: "POST /clob/books", path: "/clob/books", body: `[{"token_id":"1"},{"token_id":"2"}]`,
			respond: `[{"asset_id":"1","bids":[{"price":"0.4","size":"5"},{"price":"0.45","size":"1"}],"asks":[{"price":"0.6","size":"2"}],"tick_size":"0.01"}]`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Books(ctx, []string{"1", "2"}) },
			check: func(t *testing.T, got any) {
				b := got.([]OrderBook)
				if len(b) != 1 || len(b[0].Bids) != 2 || !b[0].Bids[0].Price.Equal(d("0.4")) || !b[0].TickSize.Equal(d("0.01")) {
					t.Errorf("got %+v", b)
				}
			},
		},
		{
			name: "spreads", pattern: "POST /clob/spreads", path: "/clob/spreads", body: `[{"token_id":"1"}]`,
			respond: `{"1":"0.02"}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Spreads(ctx, []string{"1"}) },
			check: func(t *testing.T, got any) {
				if s := got.(map[string]decimal.Decimal); len(s) != 1 || !s["1"].Equal(d("0.02")) {
					t.Errorf("got %+v", s)
				}
			},
		},
		{
			name: "order", pattern: "GET /clob/data/order/{id}", path: "/clob/data/order/0xdead", auth: true, signsPath: "/data/order/0xdead",
			respond: `{"order":{"id":"0xdead","status":"LIVE","price":"0.5","originalSize":"10","sizeMatched":"0","side":"BUY","type":"GTC"}}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.Order(ctx, "0xdead") },
			check: func(t *testing.T, got any) {
				o := got.(*Order)
				if o.ID != "0xdead" || o.Status != StatusLive || !o.OriginalSize.Equal(d("10")) || o.Type != GTC {
					t.Errorf("got %+v", o)
				}
			},
		},
		{
			name: "place orders", pattern: "POST /clob/orders", path: "/clob/orders", auth: true, signsPath: "/orders",
			body:    `[{"order":{"salt":"1","maker":"0xm","signer":"0xm","tokenId":"1","conditionId":"0xa","makerAmount":"5000000","takerAmount":"10000000","side":"BUY","signatureType":0,"timestamp":"1717243200000","metadata":"0x00","builder":"0x00","signature":"0xs"},"orderType":"GTC","owner":"k"}]`,
			respond: `[{"success":true,"errorMsg":"","orderID":"0xo","takingAmount":"","makingAmount":"","status":"live"}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PlaceOrders(ctx, []PlacementItem{{Order: SignedOrder{Salt: "1", Maker: "0xm", Signer: "0xm", TokenID: "1", ConditionID: "0xa",
					MakerAmount: "5000000", TakerAmount: "10000000", Side: Buy, Timestamp: "1717243200000", Metadata: "0x00", Builder: "0x00", Signature: "0xs"},
					OrderType: GTC, Owner: "k"}})
			},
			check: func(t *testing.T, got any) {
				if r := got.([]PlacementResult); len(r) != 1 || !r[0].Success || r[0].Status != PlaceLive || r[0].OrderID != "0xo" {
					t.Errorf("got %+v", r)
				}
			},
		},
		{
			name: "cancel order", pattern: "DELETE /clob/order", path: "/clob/order", auth: true, signsPath: "/order",
			body: `{"orderId":"0xo"}`, respond: `{"canceled":["0xo"],"not_canceled":{}}`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.CancelOrder(ctx, "0xo") },
			check: func(t *testing.T, got any) {
				if r := got.(*CancelResult); len(r.Canceled) != 1 || r.Canceled[0] != "0xo" {
					t.Errorf("got %+v", r)
				}
			},
		},
		{
			name: "builder trades", pattern: "GET /clob/builder/trades", path: "/clob/builder/trades",
			query:   url.Values{"id": {"t"}, "maker_address": {"0xm"}, "market": {"0xa"}, "asset_id": {"1"}, "before": {"100"}, "after": {"0"}, "next_cursor": {"Mw=="}},
			respond: `[{"id":"t","status":"MATCHED","match_time":"2024-06-01T10:00:00Z","type":"TAKER","side":"BUY","size":"2","price":"0.5","maker_orders":[{"order_id":"0xo","matched_amount":"2"}]}]`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.BuilderTrades(ctx, BuilderTradesParams{ID: "t", MakerAddress: "0xm", Market: "0xa", AssetID: "1", Before: Ptr(int64(100)), After: Ptr(int64(0)), NextCursor: "Mw=="})
			},
			check: func(t *testing.T, got any) {
				p := got.(*BuilderTradesPage)
				if len(p.Data) != 1 || p.NextCursor != EncodeCursor(4) || !p.Data[0].MakerOrders[0].MatchedAmount.Equal(d("2")) {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "builder trades object shape", pattern: "GET /clob/builder/trades", path: "/clob/builder/trades",
			respond: `{"data":[{"id":"t","status":"MATCHED","match_time":"1717236000","trader_side":"MAKER"}],"next_cursor":"LTE="}`,
			call:    func(ctx context.Context, c *Client) (any, error) { return c.BuilderTrades(ctx, BuilderTradesParams{}) },
			check: func(t *testing.T, got any) {
				if p := got.(*BuilderTradesPage); len(p.Data) != 1 || p.NextCursor != EndCursor {
					t.Errorf("got %+v", p)
				}
			},
		},
	}
}

// TestEndpoints calls every endpoint and checks method, path, query, body
// and headers as received, and the decoded answer.
func TestEndpoints(t *testing.T) {
	for _, tc := range endpointCases() {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t)
			auth := &fakeAuth{}
			e.c.auth = auth
			var hits atomic.Int64
			e.handle(tc.pattern, func(w http.ResponseWriter, r *http.Request, body []byte) {
				hits.Add(1)
				if r.URL.EscapedPath() != tc.path {
					t.Errorf("path = %q, want %q", r.URL.EscapedPath(), tc.path)
				}
				q := r.URL.Query()
				want := tc.query
				if want == nil {
					want = url.Values{}
				}
				if !reflect.DeepEqual(q, want) {
					t.Errorf("query = %v, want %v", q, want)
				}
				if string(body) != tc.body {
					t.Errorf("body = %s, want %s", body, tc.body)
				}
				if tc.body != "" && r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("Content-Type = %q", r.Header.Get("Content-Type"))
				}
				sig := r.Header.Get(HeaderSignature)
				if tc.auth {
					if want := fakeSig(r.Method, tc.signsPath, body); sig != want {
						t.Errorf("signature %q does not cover %s %s %s", sig, r.Method, tc.signsPath, body)
					}
					for _, h := range authHeaderNames {
						if r.Header.Get(h) == "" {
							t.Errorf("header %s missing", h)
						}
					}
				} else {
					for _, h := range authHeaderNames {
						if r.Header.Get(h) != "" {
							t.Errorf("unauthenticated call carries %s", h)
						}
					}
				}
				reply(w, http.StatusOK, tc.respond)
			})
			got, err := tc.call(e.ctx, e.c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if hits.Load() != 1 {
				t.Fatalf("server saw %d requests, want 1", hits.Load())
			}
			tc.check(t, got)
			if tc.auth != (len(auth.calls) == 1) {
				t.Errorf("authenticator calls = %v, want auth %v", auth.calls, tc.auth)
			}
		})
	}
}

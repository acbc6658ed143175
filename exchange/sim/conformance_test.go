package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/shopspring/decimal"
)

// The conformance suite: the exchange package's client against the running
// simulated exchange on 127.0.0.1:0.

var bg = context.Background()

// traded sets up two accounts with one fill (a buys 4 of outcome 0 at 0.40
// from b, whose order carries a builder code) and resolves another market so
// that closed positions exist.
func traded(t *testing.T) (*testEnv, *mstate, string) {
	t.Helper()
	env := setup(t, 2)
	a, b := env.accs[0], env.accs[1]
	s := env.openMarket(false)
	rest := a.place(t, a.order(t, s, 0, exchange.Buy, "0.4", "10", exchange.GTC))
	if !rest[0].Success {
		t.Fatalf("%+v", rest[0])
	}
	sell := b.order(t, s, 0, exchange.Sell, "0.4", "4", exchange.FAK)
	sell.Order.Builder = "0x" + strings.Repeat("ab", 32)
	// the builder field is signed: re-sign with a builder signer
	key, _ := signer.ParseKey(b.creds.PrivateKey)
	bs, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: b.creds.APIKey, Builder: "0x" + strings.Repeat("ab", 32)})
	if err != nil {
		t.Fatal(err)
	}
	so, err := bs.Sign(signer.OrderRequest{TokenID: s.m.TokenIDs[0], ConditionID: s.m.ConditionID, Side: exchange.Sell,
		Price: decimal.RequireFromString("0.4"), Size: decimal.NewFromInt(4), TickSize: s.m.TickSize, OrderType: exchange.FAK})
	if err != nil {
		t.Fatal(err)
	}
	if res := b.place(t, so.Item); !res[0].Success || res[0].Status != exchange.PlaceMatched {
		t.Fatalf("%+v", res[0])
	}
	return env, s, rest[0].OrderID
}

func TestConformanceDataAPI(t *testing.T) {
	env, s, _ := traded(t)
	a, b := env.accs[0], env.accs[1]
	c := env.client()
	trades, err := c.Trades(bg, exchange.TradesParams{})
	if err != nil || len(trades) != 1 {
		t.Fatalf("taker trades: %v %+v", err, trades)
	}
	tr := trades[0]
	if tr.ProxyWallet != b.creds.Wallet || tr.Side != exchange.Sell || tr.Asset != s.m.ConditionID+":0" ||
		tr.Size.String() != "4" || tr.Price.String() != "0.4" || tr.UsdcSize.String() != "1.6" || tr.Title != s.m.Question ||
		tr.Outcome != s.m.Outcomes[0] || !strings.HasPrefix(tr.TransactionHash, "0x") || tr.Timestamp != env.ex.Now().Unix() {
		t.Errorf("trade %+v", tr)
	}
	all, err := c.Trades(bg, exchange.TradesParams{TakerOnly: exchange.Ptr(false)})
	if err != nil || len(all) != 2 {
		t.Fatalf("all trades: %v %d", err, len(all))
	}
	for _, tc := range []struct {
		p    exchange.TradesParams
		want int
	}{
		{exchange.TradesParams{TakerOnly: exchange.Ptr(false), User: strings.ToLower(a.creds.Wallet)}, 1},
		{exchange.TradesParams{TakerOnly: exchange.Ptr(false), Side: exchange.Buy}, 1},
		{exchange.TradesParams{Market: []string{s.m.ConditionID}}, 1},
		{exchange.TradesParams{Market: []string{"0x" + strings.Repeat("0", 64)}}, 0},
		{exchange.TradesParams{FilterType: exchange.FilterTokens, FilterAmount: exchange.Ptr(decimal.NewFromInt(4))}, 1},
		{exchange.TradesParams{FilterType: exchange.FilterTokens, FilterAmount: exchange.Ptr(decimal.RequireFromString("4.01"))}, 0},
		{exchange.TradesParams{FilterType: exchange.FilterCash, FilterAmount: exchange.Ptr(decimal.RequireFromString("1.6"))}, 1},
		{exchange.TradesParams{FilterType: exchange.FilterCash, FilterAmount: exchange.Ptr(decimal.RequireFromString("1.61"))}, 0},
		{exchange.TradesParams{TakerOnly: exchange.Ptr(false), Limit: exchange.Ptr(1), Offset: exchange.Ptr(1)}, 1},
		{exchange.TradesParams{TakerOnly: exchange.Ptr(false), Offset: exchange.Ptr(2)}, 0},
		{exchange.TradesParams{Limit: exchange.Ptr(0)}, 0},
	} {
		got, err := c.Trades(bg, tc.p)
		if err != nil || len(got) != tc.want {
			t.Errorf("Trades(%+v) = %d, %v; want %d", tc.p, len(got), err, tc.want)
		}
	}
	// holders: a holds 4 bought + 100 split; b 100 split - 4 sold
	hs, err := c.Holders(bg, exchange.HoldersParams{Market: []string{s.m.ConditionID}, MinBalance: exchange.Ptr(decimal.NewFromInt(50))})
	if err != nil || len(hs) != 2 || hs[0].Token != s.m.ConditionID+":0" || len(hs[0].Holders) != 2 {
		t.Fatalf("holders %v %+v", err, hs)
	}
	if h := hs[0].Holders[0]; h.ProxyWallet != a.creds.Wallet || h.Amount.String() != "104" || h.OutcomeIndex != 0 {
		t.Errorf("top holder %+v", h)
	}
	if hs, _ := c.Holders(bg, exchange.HoldersParams{Market: []string{s.m.ConditionID}, Limit: exchange.Ptr(1)}); len(hs[1].Holders) != 1 {
		t.Errorf("limit 1: %+v", hs)
	}
	// closed positions after a resolution
	if err := env.ex.Resolve(s.m.ConditionID, 0); err != nil {
		t.Fatal(err)
	}
	cps, err := c.ClosedPositions(bg, exchange.ClosedPositionsParams{User: a.creds.Wallet})
	if err != nil || len(cps) != 1 {
		t.Fatalf("closed positions %v %+v", err, cps)
	}
	cp := cps[0]
	if cp.Asset != s.m.ConditionID+":0" || cp.OppositeAsset != s.m.ConditionID+":1" || cp.AvgPrice.String() != "0.4" ||
		cp.TotalBought.String() != "4" || cp.RealizedPnl.String() != "2.4" || cp.CurPrice.String() != "1" || cp.PercentPnl.String() != "150" {
		t.Errorf("closed position %+v", cp)
	}
	if cps, _ := c.ClosedPositions(bg, exchange.ClosedPositionsParams{User: a.creds.Wallet, Title: "no such title"}); len(cps) != 0 {
		t.Errorf("title filter: %+v", cps)
	}
}

func TestConformanceCatalogAPI(t *testing.T) {
	env := setup(t, 0)
	c := env.client()
	cat := env.ex.Catalog()
	m := cat.Markets[0]
	for _, id := range []string{strconv.FormatInt(m.ID, 10), m.ConditionID} {
		got, err := c.CatalogMarket(bg, id, "")
		if err != nil {
			t.Fatal(err)
		}
		toks, _ := got.TokenIDs()
		outs, _ := got.Outcomes()
		if got.ConditionID != m.ConditionID || len(toks) != 2 || toks[1] != m.TokenIDs[1] || len(outs) != 2 || len(got.Events) != 1 {
			t.Errorf("market %s: %+v", id, got)
		}
	}
	ev := cat.Events[0]
	for _, get := range []func() (*exchange.Event, error){
		func() (*exchange.Event, error) { return c.Event(bg, ev.ID, "") },
		func() (*exchange.Event, error) { return c.EventBySlug(bg, ev.Slug, "") },
	} {
		got, err := get()
		if err != nil || got.ID != strconv.FormatInt(ev.ID, 10) || len(got.Markets) != len(ev.MarketIDs) || len(got.Tags) != len(ev.TagIDs) || len(got.EventMetadata) == 0 {
			t.Errorf("event: %v %+v", err, got)
		}
	}
	// creator scoping
	if _, err := c.Event(bg, ev.ID, ev.Creator); err != nil {
		t.Errorf("own creator: %v", err)
	}
	if _, err := c.Event(bg, ev.ID, "someone-else"); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("other creator: %v", err)
	}
	all, err := c.Events(bg, exchange.EventsParams{Limit: exchange.Ptr(500)})
	if err != nil || len(all) != len(cat.Events) {
		t.Fatalf("events %v %d/%d", err, len(all), len(cat.Events))
	}
	scoped, _ := c.Events(bg, exchange.EventsParams{Creator: ev.Creator, Limit: exchange.Ptr(500)})
	for _, e := range scoped {
		if got, _ := env.ex.cat.EventBySlug(e.Slug); got.Creator != ev.Creator {
			t.Errorf("creator scope leaked event %s", e.Slug)
		}
	}
	one, err := c.Events(bg, exchange.EventsParams{Slug: ev.Slug})
	if err != nil || len(one) != 1 {
		t.Errorf("slug filter %v %d", err, len(one))
	}
	asc, _ := c.Events(bg, exchange.EventsParams{Ascending: exchange.Ptr(true), Limit: exchange.Ptr(2)})
	if len(asc) != 2 || asc[0].ID != strconv.FormatInt(cat.Events[0].ID, 10) {
		t.Errorf("ascending: %+v", asc)
	}
	tags, err := c.Tags(bg, exchange.ListParams{Limit: exchange.Ptr(3), Offset: exchange.Ptr(1)})
	if err != nil || len(tags) != 3 || tags[0].ID != strconv.FormatInt(cat.Tags[1].ID, 10) {
		t.Errorf("tags %v %+v", err, tags)
	}
	series, err := c.Series(bg, exchange.ListParams{})
	if err != nil || len(series) != len(cat.Series) {
		t.Errorf("series %v %d", err, len(series))
	}
}

func TestConformanceOrderBookAPI(t *testing.T) {
	env, s, orderID := traded(t)
	a, b := env.accs[0], env.accs[1]
	c := env.client()
	page, err := c.Markets(bg, exchange.FirstCursor)
	if err != nil || page.Count != len(env.ex.markets) || page.NextCursor != exchange.EndCursor || page.Limit != marketsPageSize {
		t.Fatalf("markets %v %+v", err, page)
	}
	if m := page.Data[0]; m.ConditionID == "" || len(m.Tokens) != 2 || m.MinimumTickSize.IsZero() || m.Rewards.MaxSpread.IsZero() {
		t.Errorf("market %+v", m)
	}
	if p, err := c.Markets(bg, exchange.EndCursor); err != nil || len(p.Data) != 0 || p.NextCursor != exchange.EndCursor {
		t.Errorf("end cursor %v %+v", err, p)
	}
	d, err := c.Market(bg, s.m.ConditionID)
	if err != nil || d.Shape() != exchange.ShapeMerged || d.Book.MinimumOrderSize.String() != s.m.MinOrderSize.String() || d.Event == nil || d.MarketID != s.m.ID {
		t.Fatalf("market detail %v %+v", err, d)
	}
	if sp, err := c.SimplifiedMarkets(bg, ""); err != nil || len(sp.Data) != len(env.ex.markets) || sp.Data[0].Event != nil {
		t.Errorf("simplified %v %+v", err, sp)
	}
	if sp, err := c.SamplingMarkets(bg, ""); err != nil {
		t.Errorf("sampling %v", err)
	} else {
		for _, m := range sp.Data {
			if m.Status != exchange.MarketStatusActive || m.Event == nil {
				t.Errorf("sampling item %+v", m)
			}
		}
	}
	books, err := c.Books(bg, s.m.TokenIDs[:])
	if err != nil || len(books) != 2 {
		t.Fatalf("books %v", err)
	}
	if books[0].LastTradePrice.String() != "0.4" || books[1].LastTradePrice.String() != "0.6" || books[0].TickSize.String() != s.m.TickSize.String() {
		t.Errorf("books %+v", books)
	}
	books[0].Normalize()
	books[1].Normalize()
	if len(books[0].Bids) != 1 || books[0].Bids[0].Size.String() != "6" || len(books[1].Asks) != 1 || books[1].Asks[0].Price.String() != "0.6" {
		t.Errorf("book levels %+v / %+v", books[0], books[1])
	}
	spreads, err := c.Spreads(bg, s.m.TokenIDs[:])
	if err != nil || len(spreads) != 0 { // one-sided books have no spread
		t.Errorf("spreads %v %v", err, spreads)
	}
	b.place(t, b.order(t, s, 0, exchange.Sell, "0.45", "5", exchange.GTC))
	spreads, _ = c.Spreads(bg, s.m.TokenIDs[:])
	if spreads[s.m.TokenIDs[0]].String() != "0.05" || spreads[s.m.TokenIDs[1]].String() != "0.05" {
		t.Errorf("spreads %v", spreads)
	}
	o, err := a.client.Order(bg, orderID)
	if err != nil || o.ID != orderID || o.Owner != a.creds.APIKey || o.MakerAddress != a.creds.Wallet || o.Type != exchange.GTC ||
		o.OriginalSize.String() != "10" || o.SizeMatched.String() != "4" || o.Price.String() != "0.4" || o.AssetID != s.m.TokenIDs[0] {
		t.Errorf("order %v %+v", err, o)
	}
	bt, err := c.BuilderTrades(bg, exchange.BuilderTradesParams{NextCursor: exchange.FirstCursor})
	if err != nil || len(bt.Data) != 1 || bt.Data[0].Type != "TAKER" || bt.Data[0].Status != exchange.TradeMatched || len(bt.Data[0].MakerOrders) != 1 ||
		bt.Data[0].MakerOrders[0].OrderID != orderID || bt.Data[0].Owner != b.creds.APIKey {
		t.Fatalf("builder trades %v %+v", err, bt)
	}
	if err := env.ex.Advance(builderConfirmed); err != nil {
		t.Fatal(err)
	}
	bt, _ = c.BuilderTrades(bg, exchange.BuilderTradesParams{Market: s.m.ConditionID, After: exchange.Ptr(int64(0))})
	if len(bt.Data) != 1 || bt.Data[0].Status != exchange.TradeConfirmed {
		t.Errorf("builder trades later %+v", bt)
	}
	if bt, _ := c.BuilderTrades(bg, exchange.BuilderTradesParams{Before: exchange.Ptr(int64(1))}); len(bt.Data) != 0 {
		t.Errorf("before filter %+v", bt)
	}
	cr, err := a.client.CancelOrder(bg, orderID)
	if err != nil || len(cr.Canceled) != 1 || cr.Canceled[0] != orderID {
		t.Fatalf("cancel %v %+v", err, cr)
	}
	cr, _ = a.client.CancelOrder(bg, orderID)
	if cr.NotCanceled[orderID] != msgAlreadyCanceled {
		t.Errorf("second cancel %+v", cr)
	}
	if o, _ := a.client.Order(bg, orderID); o.Status != exchange.StatusCanceled {
		t.Errorf("status after cancel %+v", o)
	}
}

// rawGet sends a GET and returns status and body.
func rawDo(t *testing.T, method, u, body string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestConformanceParameterRules(t *testing.T) {
	env := setup(t, 0)
	s := env.ex.markets[0]
	ev := env.ex.Catalog().Events[0]
	long := strings.Repeat("x", 100)
	tests := []struct {
		area, path string
		status     int
		body       string // exact JSON body of an error, or "" for a 200 array/object
	}{
		{"data", "/trades?limit=0", 200, ""},
		{"data", "/trades?limit=10000", 200, ""},
		{"data", "/trades?limit=10001", 400, `{"error":"invalid_field: limit: must be an integer from 0 to 10000"}`},
		{"data", "/trades?limit=-1", 400, `{"error":"invalid_field: limit: must be an integer from 0 to 10000"}`},
		{"data", "/trades?offset=10000", 200, ""},
		{"data", "/trades?offset=10001", 400, `{"error":"invalid_field: offset: must be an integer from 0 to 10000"}`},
		{"data", "/trades?takerOnly=false", 200, ""},
		{"data", "/trades?takerOnly=maybe", 400, `{"error":"invalid_field: takerOnly: must be true or false"}`},
		{"data", "/trades?filterType=CASH", 400, `{"error":"missing_field: filterAmount"}`},
		{"data", "/trades?filterType=CASH&filterAmount=0", 200, ""},
		{"data", "/trades?filterType=TOKENS&filterAmount=-0.01", 400, `{"error":"invalid_field: filterAmount: must be a number >= 0"}`},
		{"data", "/trades?filterType=USD&filterAmount=1", 400, `{"error":"invalid_field: filterType: must be one of CASH, TOKENS"}`},
		{"data", "/trades?side=HOLD", 400, `{"error":"invalid_field: side: must be one of BUY, SELL"}`},
		{"data", "/trades?bogus=1", 400, `{"error":"unknown_field: bogus"}`},
		{"data", "/closed-positions", 400, `{"error":"missing_field: user"}`},
		{"data", "/closed-positions?user=0xabc&limit=50", 200, ""},
		{"data", "/closed-positions?user=0xabc&limit=51", 400, `{"error":"invalid_field: limit: must be an integer from 0 to 50"}`},
		{"data", "/closed-positions?user=0xabc&offset=100000", 200, ""},
		{"data", "/closed-positions?user=0xabc&offset=100001", 400, `{"error":"invalid_field: offset: must be an integer from 0 to 100000"}`},
		{"data", "/closed-positions?user=0xabc&title=" + long, 200, ""},
		{"data", "/closed-positions?user=0xabc&title=" + long + "y", 400, `{"error":"invalid_field: title: must be at most 100 characters"}`},
		{"data", "/closed-positions?user=0xabc&sortBy=SIZE", 400, `{"error":"invalid_field: sortBy: must be one of REALIZEDPNL, TITLE, PRICE, AVGPRICE, TIMESTAMP"}`},
		{"data", "/closed-positions?user=0xabc&sortDirection=UP", 400, `{"error":"invalid_field: sortDirection: must be one of ASC, DESC"}`},
		{"data", "/closed-positions?user=0xabc&x=1", 400, `{"error":"unknown_field: x"}`},
		{"data", "/holders", 400, `{"error":"missing_field: market"}`},
		{"data", "/holders?market=" + s.m.ConditionID + "&limit=500", 200, ""},
		{"data", "/holders?market=" + s.m.ConditionID + "&limit=501", 400, `{"error":"invalid_field: limit: must be an integer from 0 to 500"}`},
		{"data", "/holders?market=" + s.m.ConditionID + "&minBalance=0", 200, ""},
		{"data", "/holders?market=" + s.m.ConditionID + "&minBalance=-1", 400, `{"error":"invalid_field: minBalance: must be a number >= 0"}`},
		{"catalog", "/series?limit=1", 200, ""},
		{"catalog", "/series?limit=500", 200, ""},
		{"catalog", "/series?limit=0", 400, `{"type":"bad request","error":"limit: must be an integer from 1 to 500"}`},
		{"catalog", "/series?limit=501", 400, `{"type":"bad request","error":"limit: must be an integer from 1 to 500"}`},
		{"catalog", "/tags?offset=0", 200, ""},
		{"catalog", "/tags?offset=-1", 400, `{"type":"bad request","error":"offset: must be an integer >= 0"}`},
		{"catalog", "/events?limit=500", 200, ""},
		{"catalog", "/events?limit=501", 400, `{"type":"bad request","error":"limit: must be an integer from 1 to 500"}`},
		{"catalog", "/events?active=yes", 400, `{"type":"bad request","error":"active: must be true or false"}`},
		{"catalog", "/events?tag_id=abc", 400, `{"type":"bad request","error":"tag_id: must be an integer"}`},
		{"catalog", "/events?order=volume", 400, `{"type":"bad request","error":"order: must be one of id, title, slug, startDate, endDate, createdAt"}`},
		{"catalog", "/events/abc", 400, `{"type":"bad request","error":"q is required"}`},
		{"catalog", "/events/1", 404, `{"type":"not found error","error":"id not found"}`},
		{"catalog", "/events/" + strconv.FormatInt(ev.ID, 10), 200, ""},
		{"catalog", "/events/slug/no-such-event", 404, `{"type":"not found error","error":"slug not found"}`},
		{"catalog", "/markets/1", 404, `{"type":"not found error","error":"id not found"}`},
		{"catalog", "/nothing", 404, `{"type":"not found error","error":"not found"}`},
		{"clob", "/markets?next_cursor=!!", 400, `{"error":"invalid next_cursor: want the base64 of an offset, MA== for the first page"}`},
		{"clob", "/markets/0x12", 400, `{"error":"invalid condition_id: want 0x and 64 hex digits"}`},
		{"clob", "/markets/0x" + strings.Repeat("0", 64), 404, `{"error":"market not found"}`},
		{"clob", "/builder/trades?before=x", 400, `{"error":"invalid before: want a Unix timestamp in seconds"}`},
		{"clob", "/nothing", 404, `{"error":"not found"}`},
	}
	base := map[string]string{"data": env.urls.Data, "catalog": env.urls.Catalog, "clob": env.urls.CLOB}
	for _, tt := range tests {
		t.Run(tt.area+tt.path[:min(len(tt.path), 60)], func(t *testing.T) {
			status, _, body := rawDo(t, http.MethodGet, base[tt.area]+tt.path, "")
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if tt.body != "" && body != tt.body {
				t.Errorf("body %s\nwant %s", body, tt.body)
			}
			if tt.body == "" && !json.Valid([]byte(body)) {
				t.Errorf("invalid JSON %s", body)
			}
		})
	}
	for _, tt := range []struct {
		path, body string
		status     int
		want       string
	}{
		{"/books", `[]`, 400, `{"error":"invalid body: no token ids"}`},
		{"/books", `[{"token_id":"1"}]`, 404, `{"error":"no orderbook exists for token id 1"}`},
		{"/books", `[{"tokenid":"1"}]`, 400, ""},
		{"/books", `{`, 400, ""},
		{"/spreads", `[{"token_id":""}]`, 400, `{"error":"invalid body: item 0 has no token_id"}`},
	} {
		status, _, body := rawDo(t, http.MethodPost, env.urls.CLOB+tt.path, tt.body)
		if status != tt.status || (tt.want != "" && body != tt.want) || !strings.HasPrefix(body, `{"error":`) {
			t.Errorf("POST %s %s: %d %s", tt.path, tt.body, status, body)
		}
	}
}

// headerMutator wraps an authenticator and edits its headers.
type headerMutator struct {
	inner exchange.Authenticator
	edit  func(h http.Header)
}

// setExact sets a header under its exact spelling, removing other spellings.
func setExact(h http.Header, name, v string) {
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
	if v != "" {
		h[name] = []string{v}
	}
}

func (m headerMutator) AuthHeaders(method, path string, body []byte) (http.Header, error) {
	h, err := m.inner.AuthHeaders(method, path, body)
	if err == nil {
		m.edit(h)
	}
	return h, err
}

func TestConformanceAuthentication(t *testing.T) {
	env, s, orderID := traded(t)
	a, b := env.accs[0], env.accs[1]
	creds := signer.Credentials{APIKey: a.creds.APIKey, Secret: a.creds.Secret, Passphrase: a.creds.Passphrase}
	stale, _ := signer.NewL2(creds, a.creds.Address, func() time.Time { return time.Now().Add(-31 * time.Second) })
	wrongPass := creds
	wrongPass.Passphrase = b.creds.Passphrase
	wp, _ := signer.NewL2(wrongPass, a.creds.Address, nil)
	unknown, _ := signer.GenerateCredentials(strings.NewReader(strings.Repeat("k", 200)))
	uk, _ := signer.NewL2(unknown, a.creds.Address, nil)
	otherAddr, _ := signer.NewL2(creds, b.creds.Address, nil)
	tests := []struct {
		name string
		auth exchange.Authenticator
		want string
	}{
		{"bad HMAC", headerMutator{a.l2, func(h http.Header) { setExact(h, exchange.HeaderSignature, strings.Repeat("0", 64)) }}, "unauthorized: invalid request signature"},
		{"HMAC over another path", headerMutator{a.l2, func(h http.Header) {
			h2, _ := a.l2.AuthHeaders(http.MethodGet, "/data/order/other", nil)
			for k, v := range h2 {
				if strings.EqualFold(k, exchange.HeaderSignature) {
					setExact(h, exchange.HeaderSignature, v[0])
				}
			}
		}}, "unauthorized: invalid request signature"},
		{"stale timestamp", stale, "unauthorized: request timestamp outside the freshness window"},
		{"wrong passphrase", wp, "unauthorized: invalid passphrase"},
		{"unknown key", uk, "unauthorized: invalid api key"},
		{"address of another key", otherAddr, "unauthorized: address does not own the api key"},
		{"missing header", headerMutator{a.l2, func(h http.Header) { setExact(h, exchange.HeaderPassphrase, "") }}, "unauthorized: missing authentication header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := env.client(exchange.WithAuthenticator(tt.auth))
			_, err := c.Order(bg, orderID)
			var ae *exchange.APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !strings.HasPrefix(ae.Message, tt.want) || !errors.Is(err, exchange.ErrUnauthorized) {
				t.Fatalf("read: %v", err)
			}
			if _, err := c.CancelOrder(bg, orderID); !errors.Is(err, exchange.ErrUnauthorized) {
				t.Errorf("cancel: %v", err)
			}
			if _, err := c.PlaceOrders(bg, []exchange.PlacementItem{a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)}); !errors.Is(err, exchange.ErrUnauthorized) {
				t.Errorf("place: %v", err)
			}
		})
	}
	// someone else's order: not readable, not cancellable
	if _, err := b.client.Order(bg, orderID); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("b reads a's order: %v", err)
	}
	if cr, err := b.client.CancelOrder(bg, orderID); err != nil || cr.NotCanceled[orderID] != msgOrderNotFound || len(cr.Canceled) != 0 {
		t.Errorf("b cancels a's order: %v %+v", err, cr)
	}
	// per-order checks
	forged := a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)
	forged.Order.MakerAmount = "600000" // 0.12 instead of 0.10: the signature no longer matches
	otherOwner := a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)
	otherOwner.Owner = b.creds.APIKey
	bsOrder := b.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC) // b's valid order sent by a
	bsOrder.Owner = a.creds.APIKey
	stolen := b.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC) // b's key, a's maker and owner
	stolen.Order.Maker, stolen.Order.Signer, stolen.Owner = a.creds.Wallet, a.creds.Wallet, a.creds.APIKey
	tooMuch := a.order(t, s, 0, exchange.Buy, "0.5", "100000", exchange.GTC)
	badType := a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)
	badType.OrderType = "IOC"
	res, err := a.client.PlaceOrders(bg, []exchange.PlacementItem{forged, otherOwner, bsOrder, stolen, tooMuch})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"invalid order signature", "owner", "maker", "invalid order signature", "not enough balance"} {
		if res[i].Success || !strings.Contains(res[i].ErrorMsg, want) {
			t.Errorf("item %d: %+v, want error containing %q", i, res[i], want)
		}
	}
	st, _, body := rawPlace(t, env, a, []exchange.PlacementItem{badType})
	if st != 200 || !strings.Contains(body, `invalid orderType \"IOC\"`) {
		t.Errorf("bad order type: %d %s", st, body)
	}
	// a duplicate is refused
	dup := a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)
	res = a.place(t, dup, dup)
	if !res[0].Success || res[1].Success || !strings.Contains(res[1].ErrorMsg, "already exists") {
		t.Errorf("duplicate: %+v", res)
	}
}

// rawPlace posts items with a's authentication, bypassing the client's
// checks.
func rawPlace(t *testing.T, env *testEnv, a *testAccount, items []exchange.PlacementItem) (int, http.Header, string) {
	t.Helper()
	body, _ := json.Marshal(items)
	h, err := a.l2.AuthHeaders(http.MethodPost, "/orders", body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, env.urls.CLOB+"/orders", strings.NewReader(string(body)))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestConformanceDepositWallet(t *testing.T) {
	env := setup(t, 1, func(c *Config) { c.Markets = 40 })
	w := env.addAccount(AccountOptions{SignatureType: signer.SigDepositWallet, Fund: decimal.NewFromInt(100)})
	if w.creds.Wallet == w.creds.Address {
		t.Fatal("deposit wallet equals the key address")
	}
	s := env.openMarket(true)
	res := w.place(t, w.order(t, s, 1, exchange.Buy, "0.2", "10", exchange.GTC))
	if !res[0].Success || res[0].Status != exchange.PlaceLive {
		t.Fatalf("type 3 order on a neg-risk market: %+v", res[0])
	}
	o, err := w.client.Order(bg, res[0].OrderID)
	if err != nil || o.MakerAddress != w.creds.Wallet {
		t.Fatalf("read %v %+v", err, o)
	}
}

func TestConformanceIPAllowlist(t *testing.T) {
	for _, tt := range []struct {
		list []string
		ok   bool
	}{
		{[]string{"10.0.0.1"}, false},
		{[]string{"192.168.0.0/16", "::1"}, false},
		{[]string{"127.0.0.1"}, true},
		{[]string{"127.0.0.0/8"}, true},
	} {
		env := setup(t, 0, func(c *Config) { c.DataAllowlist = tt.list })
		c := env.client()
		_, err := c.Trades(bg, exchange.TradesParams{})
		if tt.ok != (err == nil) {
			t.Errorf("%v: %v", tt.list, err)
		}
		if !tt.ok {
			var ae *exchange.APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Message != exchange.MsgIPNotAllowlisted || !errors.Is(err, exchange.ErrIPNotAllowlisted) {
				t.Errorf("%v: %v", tt.list, err)
			}
			// only the data API is restricted
			if _, err := c.Tags(bg, exchange.ListParams{}); err != nil {
				t.Errorf("catalog behind the data allowlist: %v", err)
			}
		}
	}
}

func TestConformanceRateLimited(t *testing.T) {
	lim := exchange.DefaultLimits()
	lim.CLOBBooks = exchange.Cap{Requests: 2, Window: time.Minute}
	lim.PostOrderBurst = exchange.Cap{Requests: 5, Window: time.Minute}
	env := setup(t, 1, func(c *Config) { c.NoRateLimits = false; c.Limits = &lim })
	a := env.accs[0]
	s := env.openMarket(false)
	for i := 0; i < 2; i++ {
		if st, _, body := rawDo(t, http.MethodPost, env.urls.CLOB+"/books", `[{"token_id":"`+s.m.TokenIDs[0]+`"}]`); st != 200 {
			t.Fatalf("books %d: %d %s", i, st, body)
		}
	}
	st, h, body := rawDo(t, http.MethodPost, env.urls.CLOB+"/books", `[{"token_id":"`+s.m.TokenIDs[0]+`"}]`)
	ra, _ := strconv.Atoi(h.Get("Retry-After"))
	if st != http.StatusTooManyRequests || ra < 59 || ra > 60 || !strings.HasPrefix(body, `{"error":"too many requests`) {
		t.Fatalf("third POST /books: %d Retry-After %q %s", st, h.Get("Retry-After"), body)
	}
	// the client sees ErrRateLimited with the Retry-After
	_, err := a.client.Books(bg, []string{s.m.TokenIDs[0]})
	var ae *exchange.APIError
	if !errors.Is(err, exchange.ErrRateLimited) || !errors.As(err, &ae) || ae.RetryAfter < 59*time.Second {
		t.Fatalf("client: %v", err)
	}
	// POST /orders costs one unit per order: 4 fit, then 2 more do not
	items := make([]exchange.PlacementItem, 6)
	for i := range items {
		items[i] = a.order(t, s, 0, exchange.Buy, "0.1"+strconv.Itoa(i), "5", exchange.GTC)
	}
	if st, _, body := rawPlace(t, env, a, items[:4]); st != 200 {
		t.Fatalf("batch of 4: %d %s", st, body)
	}
	if st, h, _ := rawPlace(t, env, a, items[4:]); st != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Fatalf("batch of 2 after 4 of 5: %d", st)
	}
	if st, _, body := rawPlace(t, env, a, items[4:5]); st != 200 {
		t.Fatalf("batch of 1 after 4 of 5: %d %s", st, body)
	}
}

// TestConformanceClientLimiterKeepsUnder drives the client's own limiter
// against the server's exact sliding windows with the same small caps: the
// client must never be throttled.
func TestConformanceClientLimiterKeepsUnder(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about two seconds of real time")
	}
	lim := exchange.DefaultLimits()
	lim.CLOBBooks = exchange.Cap{Requests: 10, Window: time.Second}
	env := setup(t, 0, func(c *Config) { c.NoRateLimits = false; c.Limits = &lim })
	c := env.client(exchange.WithLimits(lim))
	tok := env.ex.markets[0].m.TokenIDs[0]
	for i := 0; i < 25; i++ {
		if _, err := c.Books(bg, []string{tok}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
}

func TestConformanceFaults(t *testing.T) {
	env, s, orderID := traded(t)
	a := env.accs[0]
	c := env.client()
	check := func(f Faults, call func() error, want func(error) bool) {
		t.Helper()
		if err := env.ex.SetFaults(f); err != nil {
			t.Fatal(err)
		}
		defer env.ex.SetFaults(Faults{})
		if err := call(); !want(err) {
			t.Errorf("faults %+v: %v", f, err)
		}
	}
	isAPI := func(status int, msg string) func(error) bool {
		return func(err error) bool {
			var ae *exchange.APIError
			return errors.As(err, &ae) && ae.Status == status && strings.HasPrefix(ae.Message, msg)
		}
	}
	trades := func() error { _, err := c.Trades(bg, exchange.TradesParams{}); return err }
	check(Faults{DBFailureRate: 1}, trades, isAPI(500, "internal_error: unexpected database failure"))
	check(Faults{ErrorRate: 1}, trades, isAPI(500, "internal_error"))
	check(Faults{DBFailureRate: 1}, trades, func(err error) bool { return errors.Is(err, exchange.ErrServer) })
	check(Faults{DropRate: 1}, trades, func(err error) bool {
		var ae *exchange.APIError
		return err != nil && !errors.As(err, &ae)
	})
	check(Faults{DelayRate: 1, Delay: time.Millisecond}, trades, func(err error) bool { return err == nil })
	now := time.Now()
	check(Faults{MaintenanceFrom: now.Add(-time.Minute), MaintenanceUntil: now.Add(time.Minute)}, func() error {
		_, err := a.client.PlaceOrders(bg, []exchange.PlacementItem{a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC)})
		return err
	}, isAPI(503, "maintenance"))
	check(Faults{MaintenanceFrom: now.Add(-time.Minute), MaintenanceUntil: now.Add(time.Minute)}, func() error {
		_, err := a.client.Order(bg, orderID) // reads stay open
		return err
	}, func(err error) bool { return err == nil })
	// a dropped POST /orders response: the order exists and is found by its hash
	item := a.order(t, s, 0, exchange.Buy, "0.11", "5", exchange.GTC)
	hash, err := signer.OrderHash(item.Order, s.m.NegRisk, signer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	check(Faults{DropRate: 1}, func() error {
		_, err := a.client.PlaceOrders(bg, []exchange.PlacementItem{item})
		return err
	}, func(err error) bool { return err != nil })
	if o, err := a.client.Order(bg, hash); err != nil || o.Status != exchange.StatusLive {
		t.Errorf("order after a dropped answer: %v %+v", err, o)
	}
	if f := env.ex.SetFaults(Faults{ErrorRate: 2}); f == nil {
		t.Error("SetFaults accepted a rate of 2")
	}
	// A stalled endpoint never answers while the window is open; the others
	// do, and it answers again outside the window.
	tok := s.m.TokenIDs[0]
	books := func() error {
		ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
		defer cancel()
		_, err := c.Books(ctx, []string{tok})
		return err
	}
	stall := Faults{Stall: []string{"POST /books"}, StallFrom: now.Add(-time.Minute)}
	check(stall, books, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) })
	check(stall, trades, func(err error) bool { return err == nil })
	stall.StallFrom = now.Add(time.Hour)
	check(stall, books, func(err error) bool { return err == nil })
	stall.StallFrom, stall.StallUntil = now.Add(-time.Hour), now.Add(-time.Minute)
	check(stall, books, func(err error) bool { return err == nil })
	for _, bad := range []string{"POST/books", "post /books", "POST books"} {
		if err := env.ex.SetFaults(Faults{Stall: []string{bad}}); err == nil {
			t.Errorf("SetFaults accepted the stalled endpoint %q", bad)
		}
	}
}

func TestConformanceRequestLog(t *testing.T) {
	env := setup(t, 0, func(c *Config) { c.RequestLogSize = 3 })
	c := env.client()
	for i := 0; i < 4; i++ {
		_, _ = c.Tags(bg, exchange.ListParams{Offset: exchange.Ptr(i)})
	}
	_, _ = c.Event(bg, 1, "")
	log := env.ex.RequestLog()
	if len(log) != 3 || log[2].Path != "/catalog/events/1" || log[2].Status != 404 || log[0].Method != http.MethodGet || log[0].Status != 200 {
		t.Errorf("log %+v", log)
	}
}

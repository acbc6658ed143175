package exchange

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// The bodies below are written from the shapes docs/protocol.md ("Live
// shapes") describes: the spec's and the live exchange's, for every
// response where they differ.

// liveOrderBody is GET /data/order/{id} as the live exchange sends it:
// unwrapped, snake_case, order_type, created_at in Unix seconds.
const liveOrderBody = `{"id":"0x9c1e","status":"ORDER_STATUS_MATCHED","market":"0xabc1","original_size":"100","outcome":"Yes",` +
	`"maker_address":"0x1111","owner":"4c1f5d0e-2b7a-4e53-8a55-0f5b8c7e6d21","price":"0.57","side":"BUY","size_matched":"100",` +
	`"asset_id":"7111","order_type":"GTC","expiration":"0","associate_trades":["t-1","t-2"],"created_at":1726043102}`

// specOrderBody is the same order in the spec's shape.
const specOrderBody = `{"order":{"associateTrades":["t-1","t-2"],"id":"0x9c1e","status":"MATCHED","market":"0xabc1","originalSize":"100",` +
	`"outcome":"Yes","makerAddress":"0x1111","owner":"4c1f5d0e-2b7a-4e53-8a55-0f5b8c7e6d21","price":"0.57","side":"BUY",` +
	`"sizeMatched":"100","assetId":"7111","type":"GTC","createdAt":"2024-09-11T08:25:02Z","updatedAt":"2024-09-11T08:25:03Z"}}`

var orderShapeCases = []struct {
	name, body                   string
	status, orig, matched, price string
	typ                          OrderType
	created, updated, expiration string
	trades                       int
}{
	{"spec wrapped camelCase", specOrderBody, StatusMatched, "100", "100", "0.57", GTC, "2024-09-11T08:25:02Z", "2024-09-11T08:25:03Z", "", 2},
	{"live unwrapped snake_case", liveOrderBody, StatusMatched, "100", "100", "0.57", GTC, "2024-09-11T08:25:02Z", "", "0", 2},
	{"live wrapped", `{"order":` + liveOrderBody + `}`, StatusMatched, "100", "100", "0.57", GTC, "2024-09-11T08:25:02Z", "", "0", 2},
	{"live amounts as numbers", `{"id":"0x1","status":"LIVE","original_size":10.5,"size_matched":0,"price":0.4,"order_type":"gtc","created_at":"1726043102","expiration":1726050000}`,
		StatusLive, "10.5", "0", "0.4", GTC, "2024-09-11T08:25:02Z", "", "1726050000", 0},
	{"created_at in milliseconds", `{"id":"0x1","status":"live","original_size":"5","size_matched":"1","price":"0.1","created_at":1726043102500}`,
		StatusLive, "5", "1", "0.1", "", "2024-09-11T08:25:02.500Z", "", "", 0},
	{"spec nulls in optional fields", `{"order":{"associateTrades":null,"id":"0xa","status":"CANCELED","originalSize":"3","sizeMatched":"0","price":"0.5","createdAt":null}}`,
		StatusCanceled, "3", "0", "0.5", "", "", "", "", 0},
}

func TestOrderShapes(t *testing.T) {
	tests := orderShapeCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env OrderEnvelope
			if err := json.Unmarshal([]byte(tt.body), &env); err != nil {
				t.Fatalf("decode: %v", err)
			}
			o := env.Order
			if o.ID == "" || o.Status != tt.status || o.OriginalSize.String() != tt.orig || o.SizeMatched.String() != tt.matched ||
				o.Price.String() != tt.price || o.Type != tt.typ || o.CreatedAt != tt.created || o.UpdatedAt != tt.updated ||
				o.Expiration != tt.expiration || len(o.AssociateTrades) != tt.trades {
				t.Errorf("decoded %+v", o)
			}
			// What decoded encodes in the spec's shape and decodes again
			// to the same order.
			b, err := json.Marshal(env)
			if err != nil {
				t.Fatal(err)
			}
			var again OrderEnvelope
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatalf("own encoding %s: %v", b, err)
			}
			if b2, _ := json.Marshal(again); string(b2) != string(b) || !strings.HasPrefix(string(b), `{"order":{`) {
				t.Errorf("not the spec's shape or not a fixed point:\n%s\n%s", b, b2)
			}
		})
	}
	var live, spec OrderEnvelope
	if err := json.Unmarshal([]byte(liveOrderBody), &live); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(specOrderBody), &spec); err != nil {
		t.Fatal(err)
	}
	live.Order.Expiration, spec.Order.UpdatedAt = "", ""
	if lb, sb := mustJSON(t, live), mustJSON(t, spec); lb != sb {
		t.Errorf("the two shapes of one order decode differently:\nlive %s\nspec %s", lb, sb)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOrderStatusForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"LIVE", StatusLive}, {"live", StatusLive}, {"Live", StatusLive}, {"ORDER_STATUS_LIVE", StatusLive}, {"order_status_live", StatusLive},
		{"MATCHED", StatusMatched}, {"matched", StatusMatched}, {"ORDER_STATUS_MATCHED", StatusMatched},
		{"CANCELED", StatusCanceled}, {"canceled", StatusCanceled}, {"CANCELLED", StatusCanceled}, {"ORDER_STATUS_CANCELED", StatusCanceled},
		{"ORDER_STATUS_CANCELED_MARKET_RESOLVED", StatusCanceled}, {"ORDER_STATUS_INVALID", StatusCanceled},
		{"delayed", StatusLive}, {"UNMATCHED", StatusLive}, {" live ", StatusLive},
		{"", ""}, {"OPEN", ""}, {"FILLED", ""}, {"ORDER_STATUS_", ""}, {"LIVEX", ""}, {"ORDER_STATUS_UNKNOWN", ""},
	}
	for _, tt := range tests {
		got, err := ParseOrderStatus(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("ParseOrderStatus(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if tt.want == "" && tt.in != "" && (err == nil || !strings.Contains(err.Error(), tt.in)) {
			t.Errorf("ParseOrderStatus(%q): the error %v does not name the value", tt.in, err)
		}
	}
}

// An order read that lacks what the loop needs is an error naming the
// field, never an empty order.
var orderMissingCases = []struct{ name, body, field string }{
	{"empty object", `{}`, "id"},
	{"spec shape without id", `{"order":{"status":"LIVE","originalSize":"1","sizeMatched":"0","price":"0.5"}}`, "id"},
	{"order null", `{"order":null}`, "order"},
	{"body null", `null`, "null"},
	{"no status", `{"id":"0x1","original_size":"1","size_matched":"0","price":"0.5"}`, "status"},
	{"unknown status", `{"id":"0x1","status":"PARKED","original_size":"1","size_matched":"0","price":"0.5"}`, `"PARKED"`},
	{"no size matched", `{"id":"0x1","status":"LIVE","original_size":"1","price":"0.5"}`, "sizeMatched"},
	{"size matched null", `{"order":{"id":"0x1","status":"LIVE","originalSize":"1","sizeMatched":null,"price":"0.5"}}`, "sizeMatched"},
	{"size matched empty", `{"id":"0x1","status":"LIVE","original_size":"1","size_matched":"","price":"0.5"}`, "sizeMatched"},
	{"no original size", `{"id":"0x1","status":"LIVE","size_matched":"0","price":"0.5"}`, "originalSize"},
	{"no price", `{"id":"0x1","status":"LIVE","original_size":"1","size_matched":"0"}`, "price"},
	{"size matched not a number", `{"id":"0x1","status":"LIVE","original_size":"1","size_matched":"lots","price":"0.5"}`, "sizeMatched"},
	{"negative size", `{"id":"0x1","status":"LIVE","original_size":"-1","size_matched":"0","price":"0.5"}`, "originalSize"},
	{"huge exponent", `{"id":"0x1","status":"LIVE","original_size":"1e999999999","size_matched":"0","price":"0.5"}`, "originalSize"},
	{"both spellings", `{"id":"0x1","status":"LIVE","originalSize":"1","original_size":"1","size_matched":"0","price":"0.5"}`, "name the same field"},
	{"created_at not a time", `{"id":"0x1","status":"LIVE","original_size":"1","size_matched":"0","price":"0.5","created_at":"soon"}`, "createdAt"},
	{"id a number", `{"id":7,"status":"LIVE","original_size":"1","size_matched":"0","price":"0.5"}`, "id"},
	{"type and order_type disagree", `{"id":"0x1","status":"LIVE","original_size":"1","size_matched":"0","price":"0.5","type":"GTC","order_type":"FOK"}`, "order_type"},
}

func TestOrderMissingFields(t *testing.T) {
	tests := orderMissingCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env OrderEnvelope
			err := json.Unmarshal([]byte(tt.body), &env)
			if err == nil {
				t.Fatalf("decoded %+v, want an error naming %s", env.Order, tt.field)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %q does not name %s", err, tt.field)
			}
		})
	}
}

// Client.Order against a server that answers in the live shape.
func TestClientOrderLiveShape(t *testing.T) {
	e := setup(t)
	e.handle("GET /clob/data/order/{id}", func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch r.PathValue("id") {
		case "0x9c1e":
			reply(w, http.StatusOK, liveOrderBody)
		default:
			reply(w, http.StatusOK, `{"id":"0x2","original_size":"1","size_matched":"0","price":"0.5"}`)
		}
	})
	o, err := e.c.Order(e.ctx, "0x9c1e")
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != "0x9c1e" || o.Status != StatusMatched || !o.SizeMatched.Equal(decimal.NewFromInt(100)) ||
		!o.OriginalSize.Equal(decimal.NewFromInt(100)) || o.Price.String() != "0.57" || o.AssetID != "7111" || o.Side != Buy {
		t.Errorf("live order read as %+v", o)
	}
	_, err = e.c.Order(e.ctx, "0x2")
	var de *DecodeError
	var fe *FieldError
	if !errors.As(err, &de) || !errors.As(err, &fe) || fe.Field != "status" {
		t.Errorf("an order without status: %v, want a *DecodeError with a *FieldError for status", err)
	}
}

// liveTradesBody is GET /builder/trades as the live exchange sends it:
// times as strings of Unix seconds, the role in trader_side, no type.
const liveTradesBody = `[{"id":"8a4f","taker_order_id":"0xt1","market":"0xabc1","asset_id":"7111","side":"BUY","size":"10","fee_rate_bps":"0",` +
	`"price":"0.52","status":"TRADE_STATUS_CONFIRMED","match_time":"1726043102","last_update":"1726043160","outcome":"Yes","bucket_index":0,` +
	`"owner":"k1","maker_address":"0x1111","transaction_hash":"0xtx","trader_side":"MAKER",` +
	`"maker_orders":[{"order_id":"0xm1","maker_address":"0x1111","owner":"k1","matched_amount":"10","fee_rate_bps":"0","price":"0.52","asset_id":"7111","outcome":"Yes","side":"SELL"}]}]`

var tradeShapeCases = []struct {
	name, body      string
	status, typ, ts string
	matchTime, last string
	at              time.Time
}{
	{"live", liveTradesBody, TradeConfirmed, RoleMaker, "MAKER", "2024-09-11T08:25:02Z", "2024-09-11T08:26:00Z", time.Unix(1726043102, 0)},
	{"spec", `[{"id":"bt1","status":"MATCHED","match_time":"2024-06-01T10:00:00Z","last_update":"2024-06-01T10:00:01.250Z","type":"TAKER"}]`,
		TradeMatched, RoleTaker, "", "2024-06-01T10:00:00Z", "2024-06-01T10:00:01.250Z", time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)},
	{"times as JSON numbers, lower case", `[{"id":"bt1","status":"mined","match_time":1726043102,"last_update":1726043102999,"trader_side":"taker"}]`,
		TradeMined, RoleTaker, "taker", "2024-09-11T08:25:02Z", "2024-09-11T08:25:02.999Z", time.Unix(1726043102, 0)},
	{"type and trader_side agree", `[{"id":"bt1","status":"Failed","match_time":"1726043102","type":"taker","trader_side":"TAKER"}]`,
		TradeFailed, RoleTaker, "TAKER", "2024-09-11T08:25:02Z", "", time.Unix(1726043102, 0)},
	{"match_time in milliseconds", `[{"id":"bt1","status":"RETRYING","match_time":"1726043102000","type":"MAKER"}]`,
		TradeRetrying, RoleMaker, "", "2024-09-11T08:25:02Z", "", time.Unix(1726043102, 0)},
}

func TestBuilderTradeShapes(t *testing.T) {
	tests := tradeShapeCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := decodeBuilderTrades([]byte(tt.body), FirstCursor)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			bt := page.Data[0]
			if bt.Status != tt.status || bt.Type != tt.typ || bt.TraderSide != tt.ts || bt.MatchTime != tt.matchTime || bt.LastUpdate != tt.last ||
				!bt.MatchedAt().Equal(tt.at) {
				t.Errorf("decoded %+v (matched at %v)", bt, bt.MatchedAt())
			}
			// The decoder's answer reads back the same.
			b, _ := json.Marshal(page.Data)
			var again []BuilderTrade
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatalf("own encoding %s: %v", b, err)
			}
			if b2, _ := json.Marshal(again); string(b2) != string(b) {
				t.Errorf("not a fixed point:\n%s\n%s", b, b2)
			}
		})
	}
	page, err := decodeBuilderTrades([]byte(liveTradesBody), FirstCursor)
	if err != nil {
		t.Fatal(err)
	}
	if mo := page.Data[0].MakerOrders; len(mo) != 1 || mo[0].OrderID != "0xm1" || !mo[0].MatchedAmount.Equal(decimal.NewFromInt(10)) {
		t.Errorf("maker orders %+v", mo)
	}
}

var tradeMissingCases = []struct{ name, body, field string }{
	{"no id", `{"status":"MATCHED","match_time":"1726043102","type":"TAKER"}`, "id"},
	{"no status", `{"id":"b","match_time":"1726043102","type":"TAKER"}`, "status"},
	{"unknown status", `{"id":"b","status":"SETTLED","match_time":"1726043102","type":"TAKER"}`, `"SETTLED"`},
	{"no match_time", `{"id":"b","status":"MATCHED","type":"TAKER"}`, "match_time"},
	{"match_time not a time", `{"id":"b","status":"MATCHED","match_time":"yesterday","type":"TAKER"}`, "match_time"},
	{"match_time negative", `{"id":"b","status":"MATCHED","match_time":-5,"type":"TAKER"}`, "match_time"},
	{"last_update not a time", `{"id":"b","status":"MATCHED","match_time":"1726043102","last_update":"x","type":"TAKER"}`, "last_update"},
	{"no role", `{"id":"b","status":"MATCHED","match_time":"1726043102"}`, "trader_side"},
	{"unknown role", `{"id":"b","status":"MATCHED","match_time":"1726043102","trader_side":"BYSTANDER"}`, "BYSTANDER"},
	{"roles disagree", `{"id":"b","status":"MATCHED","match_time":"1726043102","type":"TAKER","trader_side":"MAKER"}`, "disagrees"},
}

func TestBuilderTradeMissingFields(t *testing.T) {
	tests := tradeMissingCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bt BuilderTrade
			err := json.Unmarshal([]byte(tt.body), &bt)
			var fe *FieldError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("decoded %+v, %v; want a *FieldError naming %s", bt, err, tt.field)
			}
		})
	}
}

var catalogTokenCases = []struct {
	name, body    string
	ids, outcomes string
}{
	{"JSON-encoded strings (spec)", `{"id":"1","outcomes":"[\"Yes\",\"No\"]","clobTokenIds":"[\"7111\",\"7112\"]"}`, "7111|7112", "Yes|No"},
	{"plain arrays (live)", `{"id":"1","outcomes":["Yes","No"],"clobTokenIds":["7111","7112"]}`, "7111|7112", "Yes|No"},
	{"mixed", `{"id":"1","outcomes":"[\"Yes\",\"No\"]","clobTokenIds":["7111","7112"]}`, "7111|7112", "Yes|No"},
	{"absent and null", `{"id":"1","outcomes":null}`, "", ""},
	{"empty arrays", `{"id":"1","outcomes":[],"clobTokenIds":[]}`, "", ""},
}

func TestCatalogMarketTokenForms(t *testing.T) {
	tests := catalogTokenCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m CatalogMarket
			if err := json.Unmarshal([]byte(tt.body), &m); err != nil {
				t.Fatalf("decode: %v", err)
			}
			ids, err := m.TokenIDs()
			outs, err2 := m.Outcomes()
			if err != nil || err2 != nil || strings.Join(ids, "|") != tt.ids || strings.Join(outs, "|") != tt.outcomes {
				t.Errorf("ids %q %v, outcomes %q %v", ids, err, outs, err2)
			}
			// inside an event too
			var ev Event
			if err := json.Unmarshal([]byte(`{"id":"e","markets":[`+tt.body+`]}`), &ev); err != nil || len(ev.Markets) != 1 {
				t.Fatalf("event: %v", err)
			}
			if ids2, _ := ev.Markets[0].TokenIDs(); strings.Join(ids2, "|") != tt.ids {
				t.Errorf("in an event: ids %q", ids2)
			}
		})
	}
	for _, bad := range []string{`{"id":"1","clobTokenIds":[7111,7112]}`, `{"id":"1","outcomes":{"a":"b"}}`, `{"id":"1","clobTokenIds":5}`} {
		var m CatalogMarket
		err := json.Unmarshal([]byte(bad), &m)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FieldError", bad, err)
		}
	}
}

// An older book without tick_size or min_order_size is refused with the
// field named as absent.
func TestBookWithoutTerms(t *testing.T) {
	tests := []struct{ name, body, reason, detail string }{
		{"no tick_size", `{"market":"0xm","asset_id":"7111","min_order_size":"5","bids":[],"asks":[]}`, InvalidTick, "tick_size is absent"},
		{"no min_order_size", `{"market":"0xm","asset_id":"7111","tick_size":"0.01","bids":[],"asks":[]}`, InvalidMinSize, "min_order_size is absent"},
		{"neither", `{"market":"0xm","asset_id":"7111","bids":[],"asks":[]}`, InvalidTick, "tick_size is absent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b OrderBook
			if err := json.Unmarshal([]byte(tt.body), &b); err != nil {
				t.Fatal(err)
			}
			err := ValidateBook(&b)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Reason != tt.reason || !strings.Contains(ve.Detail, tt.detail) {
				t.Errorf("ValidateBook: %v; want %s naming %q", err, tt.reason, tt.detail)
			}
		})
	}
	var m Market
	if err := json.Unmarshal([]byte(`{"condition_id":"0xm","minimum_order_size":5}`), &m); err != nil {
		t.Fatal(err)
	}
	if err := ValidateMarket(&m); err == nil || !strings.Contains(err.Error(), "minimum_tick_size is absent") {
		t.Errorf("ValidateMarket: %v", err)
	}
}

// Where the spec leaves the format open: a book's terms and last trade
// price as "" (no value), its timestamp in any time form, a placement
// status in any case.
func TestBookAndPlacementForms(t *testing.T) {
	body := `[{"market":"0xm","asset_id":"7111","timestamp":"1726043102123","hash":"h","tick_size":"","min_order_size":"","last_trade_price":"","bids":[{"price":"0.4","size":"5"}],"asks":[]},` +
		`{"market":"0xm","asset_id":"7112","timestamp":"2024-09-11T08:25:02Z","tick_size":0.01,"min_order_size":5,"last_trade_price":null,"bids":[],"asks":[]}]`
	books, err := decodeBooks([]byte(body))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !books[0].LastTradePrice.IsZero() || !books[0].TickSize.IsZero() || len(books[0].Bids) != 1 || books[0].Hash != "h" {
		t.Errorf("book with empty strings: %+v", books[0])
	}
	if err := ValidateBook(&books[0]); err == nil || !strings.Contains(err.Error(), "tick_size is absent") {
		t.Errorf("ValidateBook: %v", err)
	}
	if err := ValidateBook(&books[1]); err != nil {
		t.Errorf("terms as JSON numbers: %v", err)
	}
	if at, ok := books[0].Time(); !ok || !at.Equal(time.UnixMilli(1726043102123)) {
		t.Errorf("book time %v %v", at, ok)
	}
	if at, ok := books[1].Time(); !ok || !at.Equal(time.Unix(1726043102, 0)) {
		t.Errorf("book time %v %v", at, ok)
	}
	if _, ok := (&OrderBook{Timestamp: "later"}).Time(); ok {
		t.Error("an unreadable book time read")
	}
	for _, bad := range []string{`[{"tick_size":"x"}]`, `[{"last_trade_price":"0.5.5"}]`, `[{"bids":[{"price":""}]}]`, `[{"tick_size":"","x":1}`} {
		if _, err := decodeBooks([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}

	var res []PlacementResult
	if err := json.Unmarshal([]byte(`[{"success":true,"status":"LIVE","orderID":"0x1"},{"success":true,"status":"Delayed"},{"success":true,"status":"matched"},{"success":false,"errorMsg":"x","status":""},{"success":true,"status":"PARKED"}]`), &res); err != nil {
		t.Fatal(err)
	}
	if res[0].Status != PlaceLive || res[0].OrderID != "0x1" || res[1].Status != PlaceDelayed || res[2].Status != PlaceMatched || res[3].Status != "" || res[4].Status != "parked" {
		t.Errorf("placement statuses %+v", res)
	}
}

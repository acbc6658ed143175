package exchange

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
)

type encoder interface {
	encode() (url.Values, error)
	Validate() error
}

// paramCase is one parameter set: it is accepted (badParam "") and then
// encodes to query (when query is non-nil), or rejected naming badParam.
type paramCase struct {
	name     string
	p        encoder
	badParam string
	query    url.Values
}

func paramCases() []paramCase {
	dec := decimal.RequireFromString
	title := func(n int) string { return strings.Repeat("é", n) }
	return []paramCase{
		// GET /trades
		{"trades empty", &TradesParams{}, "", url.Values{}},
		{"trades limit 0", &TradesParams{Limit: Ptr(0)}, "", url.Values{"limit": {"0"}}},
		{"trades limit 10000", &TradesParams{Limit: Ptr(10000)}, "", url.Values{"limit": {"10000"}}},
		{"trades limit -1", &TradesParams{Limit: Ptr(-1)}, "limit", nil},
		{"trades limit 10001", &TradesParams{Limit: Ptr(10001)}, "limit", nil},
		{"trades offset 0", &TradesParams{Offset: Ptr(0)}, "", url.Values{"offset": {"0"}}},
		{"trades offset 10000", &TradesParams{Offset: Ptr(10000)}, "", nil},
		{"trades offset -1", &TradesParams{Offset: Ptr(-1)}, "offset", nil},
		{"trades offset 10001", &TradesParams{Offset: Ptr(10001)}, "offset", nil},
		{"trades takerOnly true", &TradesParams{TakerOnly: Ptr(true)}, "", url.Values{"takerOnly": {"true"}}},
		{"trades filter tokens", &TradesParams{FilterType: FilterTokens, FilterAmount: Ptr(dec("0"))}, "", url.Values{"filterType": {"TOKENS"}, "filterAmount": {"0"}}},
		{"trades filter type without amount", &TradesParams{FilterType: FilterCash}, "filterAmount", nil},
		{"trades filter type lower case", &TradesParams{FilterType: "cash", FilterAmount: Ptr(dec("1"))}, "filterType", nil},
		{"trades filter amount negative", &TradesParams{FilterType: FilterCash, FilterAmount: Ptr(dec("-0.01"))}, "filterAmount", nil},
		{"trades filter amount alone", &TradesParams{FilterAmount: Ptr(dec("3.5"))}, "", url.Values{"filterAmount": {"3.5"}}},
		{"trades side BUY", &TradesParams{Side: Buy}, "", url.Values{"side": {"BUY"}}},
		{"trades side buy", &TradesParams{Side: "buy"}, "side", nil},
		{"trades markets", &TradesParams{Market: []string{"0xa", "0xb", "0xc"}}, "", url.Values{"market": {"0xa,0xb,0xc"}}},
		{"trades empty market item", &TradesParams{Market: []string{"0xa", ""}}, "market", nil},
		{"trades market with comma", &TradesParams{Market: []string{"0xa,0xb"}}, "market", nil},
		{"trades user", &TradesParams{User: "0xu"}, "", url.Values{"user": {"0xu"}}},

		// GET /closed-positions
		{"closed user only", &ClosedPositionsParams{User: "0xu"}, "", url.Values{"user": {"0xu"}}},
		{"closed no user", &ClosedPositionsParams{}, "user", nil},
		{"closed limit 0", &ClosedPositionsParams{User: "u", Limit: Ptr(0)}, "", nil},
		{"closed limit 50", &ClosedPositionsParams{User: "u", Limit: Ptr(50)}, "", nil},
		{"closed limit 51", &ClosedPositionsParams{User: "u", Limit: Ptr(51)}, "limit", nil},
		{"closed limit -1", &ClosedPositionsParams{User: "u", Limit: Ptr(-1)}, "limit", nil},
		{"closed offset 100000", &ClosedPositionsParams{User: "u", Offset: Ptr(100000)}, "", nil},
		{"closed offset 100001", &ClosedPositionsParams{User: "u", Offset: Ptr(100001)}, "offset", nil},
		{"closed offset -1", &ClosedPositionsParams{User: "u", Offset: Ptr(-1)}, "offset", nil},
		{"closed title 100 runes", &ClosedPositionsParams{User: "u", Title: title(100)}, "", nil},
		{"closed title 101 runes", &ClosedPositionsParams{User: "u", Title: title(101)}, "title", nil},
		{"closed sortBy each", &ClosedPositionsParams{User: "u", SortBy: SortAvgPrice, SortDirection: SortDesc}, "", url.Values{"user": {"u"}, "sortBy": {"AVGPRICE"}, "sortDirection": {"DESC"}}},
		{"closed sortBy bad", &ClosedPositionsParams{User: "u", SortBy: "PNL"}, "sortBy", nil},
		{"closed sortDirection bad", &ClosedPositionsParams{User: "u", SortDirection: "asc"}, "sortDirection", nil},
		{"closed bad market", &ClosedPositionsParams{User: "u", Market: []string{""}}, "market", nil},

		// GET /holders
		{"holders market required", &HoldersParams{}, "market", nil},
		{"holders ok", &HoldersParams{Market: []string{"0xa"}}, "", url.Values{"market": {"0xa"}}},
		{"holders limit 0", &HoldersParams{Market: []string{"0xa"}, Limit: Ptr(0)}, "", nil},
		{"holders limit 500", &HoldersParams{Market: []string{"0xa"}, Limit: Ptr(500)}, "", nil},
		{"holders limit 501", &HoldersParams{Market: []string{"0xa"}, Limit: Ptr(501)}, "limit", nil},
		{"holders limit -1", &HoldersParams{Market: []string{"0xa"}, Limit: Ptr(-1)}, "limit", nil},
		{"holders minBalance 0", &HoldersParams{Market: []string{"0xa"}, MinBalance: Ptr(decimal.Zero)}, "", url.Values{"market": {"0xa"}, "minBalance": {"0"}}},
		{"holders minBalance negative", &HoldersParams{Market: []string{"0xa"}, MinBalance: Ptr(dec("-1"))}, "minBalance", nil},

		// catalog lists
		{"list empty", &ListParams{}, "", url.Values{}},
		{"list limit 1", &ListParams{Limit: Ptr(1)}, "", url.Values{"limit": {"1"}}},
		{"list limit 500", &ListParams{Limit: Ptr(500)}, "", nil},
		{"list limit 0", &ListParams{Limit: Ptr(0)}, "limit", nil},
		{"list limit 501", &ListParams{Limit: Ptr(501)}, "limit", nil},
		{"list offset 0", &ListParams{Offset: Ptr(0)}, "", url.Values{"offset": {"0"}}},
		{"list offset huge", &ListParams{Offset: Ptr(1 << 30)}, "", nil},
		{"list offset -1", &ListParams{Offset: Ptr(-1)}, "offset", nil},
		{"events limit 1", &EventsParams{Limit: Ptr(1)}, "", nil},
		{"events limit 500", &EventsParams{Limit: Ptr(500)}, "", nil},
		{"events limit 0", &EventsParams{Limit: Ptr(0)}, "limit", nil},
		{"events limit 501", &EventsParams{Limit: Ptr(501)}, "limit", nil},
		{"events offset -1", &EventsParams{Offset: Ptr(-1)}, "offset", nil},
		{"events ascending false sent", &EventsParams{Ascending: Ptr(false)}, "", url.Values{"ascending": {"false"}}},

		// GET /builder/trades
		{"builder empty", &BuilderTradesParams{}, "", url.Values{}},
		{"builder before 0", &BuilderTradesParams{Before: Ptr(int64(0))}, "", url.Values{"before": {"0"}}},
		{"builder before -1", &BuilderTradesParams{Before: Ptr(int64(-1))}, "before", nil},
		{"builder after -1", &BuilderTradesParams{After: Ptr(int64(-1))}, "after", nil},
	}
}

func TestParamRules(t *testing.T) {
	for _, tc := range paramCases() {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.p.encode()
			verr := tc.p.Validate()
			if (err == nil) != (verr == nil) {
				t.Fatalf("encode err %v but Validate err %v", err, verr)
			}
			if tc.badParam == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if tc.query != nil && !reflect.DeepEqual(q, tc.query) {
					t.Errorf("query = %v, want %v", q, tc.query)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidParam) {
				t.Fatalf("err = %v, want *ParamError", err)
			}
			if pe.Param != tc.badParam || pe.Rule == "" || !strings.Contains(err.Error(), tc.badParam) {
				t.Errorf("ParamError = %+v, want param %q", pe, tc.badParam)
			}
		})
	}
}

// TestRejectedParamsSendNothing: a rule violation is reported before any
// request, for every endpoint with parameters.
func TestRejectedParamsSendNothing(t *testing.T) {
	e := setup(t)
	var hits atomic.Int64
	e.handle("/", func(_ http.ResponseWriter, _ *http.Request, _ []byte) { hits.Add(1) })
	calls := []func() error{
		func() error { _, err := e.c.Trades(e.ctx, TradesParams{Limit: Ptr(-1)}); return err },
		func() error { _, err := e.c.ClosedPositions(e.ctx, ClosedPositionsParams{}); return err },
		func() error { _, err := e.c.Holders(e.ctx, HoldersParams{}); return err },
		func() error { _, err := e.c.CatalogMarket(e.ctx, "", ""); return err },
		func() error { _, err := e.c.Event(e.ctx, -1, ""); return err },
		func() error { _, err := e.c.EventBySlug(e.ctx, "", ""); return err },
		func() error { _, err := e.c.Series(e.ctx, ListParams{Limit: Ptr(0)}); return err },
		func() error { _, err := e.c.Tags(e.ctx, ListParams{Limit: Ptr(501)}); return err },
		func() error { _, err := e.c.Events(e.ctx, EventsParams{Offset: Ptr(-1)}); return err },
		func() error { _, err := e.c.Market(e.ctx, ""); return err },
		func() error { _, err := e.c.Books(e.ctx, nil); return err },
		func() error { _, err := e.c.Books(e.ctx, []string{"1", ""}); return err },
		func() error { _, err := e.c.Spreads(e.ctx, []string{}); return err },
		func() error { _, err := e.c.Order(e.ctx, ""); return err },
		func() error { _, err := e.c.PlaceOrders(e.ctx, nil); return err },
		func() error { _, err := e.c.PlaceOrders(e.ctx, make([]PlacementItem, 16)); return err },
		func() error {
			_, err := e.c.PlaceOrders(e.ctx, []PlacementItem{{Order: SignedOrder{Side: "HOLD"}, OrderType: GTC}})
			return err
		},
		func() error {
			_, err := e.c.PlaceOrders(e.ctx, []PlacementItem{{Order: SignedOrder{Side: Sell}, OrderType: "IOC"}})
			return err
		},
		func() error { _, err := e.c.CancelOrder(e.ctx, ""); return err },
		func() error {
			_, err := e.c.BuilderTrades(e.ctx, BuilderTradesParams{After: Ptr(int64(-5))})
			return err
		},
	}
	for i, call := range calls {
		if err := call(); !errors.Is(err, ErrInvalidParam) {
			t.Errorf("call %d: err = %v, want ErrInvalidParam", i, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("server saw %d requests", hits.Load())
	}
}

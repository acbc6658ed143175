package exchange

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/internal/golden"

	"github.com/shopspring/decimal"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// typeCases maps each testdata/types/<name>.in.json to a fresh value of the
// type it decodes into.
var typeCases = []struct {
	name string
	new  func() any
}{
	{"trades", func() any { return new([]Trade) }},
	{"closed_positions", func() any { return new([]ClosedPosition) }},
	{"holders", func() any { return new([]HolderGroup) }},
	{"catalog_market", func() any { return new(CatalogMarket) }},
	{"event_full", func() any { return new(Event) }},
	{"events_list", func() any { return new([]Event) }},
	{"series", func() any { return new([]Series) }},
	{"tags", func() any { return new([]Tag) }},
	{"markets_page", func() any { return new(MarketsPage) }},
	{"sampling_page", func() any { return new(SummariesPage) }},
	{"simplified_page", func() any { return new(SummariesPage) }},
	{"market_detail_summary", func() any { return new(MarketDetail) }},
	{"market_detail_merged", func() any { return new(MarketDetail) }},
	{"books", func() any { return new([]OrderBook) }},
	{"spreads", func() any { return new(map[string]decimal.Decimal) }},
	{"order", func() any { return new(OrderEnvelope) }},
	{"order_nulls", func() any { return new(OrderEnvelope) }},
	{"order_live", func() any { return new(OrderEnvelope) }},
	{"placement_items", func() any { return new([]PlacementItem) }},
	{"placement_results", func() any { return new([]PlacementResult) }},
	{"cancel_result", func() any { return new(CancelResult) }},
	{"builder_trades", func() any { return new([]BuilderTrade) }},
	{"builder_trades_live", func() any { return new([]BuilderTrade) }},
	{"catalog_market_live", func() any { return new(CatalogMarket) }},
	{"error_bodies", func() any { return new([]ErrorBody) }},
}

func encodeIndent(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return append(b, '\n')
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// TestTypesGolden decodes each input (with absent and null fields), encodes
// it, compares with the golden file, and checks that the golden file itself
// round-trips byte for byte.
func TestTypesGolden(t *testing.T) {
	for _, tc := range typeCases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "types", tc.name+".in.json"))
			if err != nil {
				t.Fatal(err)
			}
			v := tc.new()
			if err := decodeStrict(in, v); err != nil {
				t.Fatalf("decode input: %v", err)
			}
			got := encodeIndent(t, v)
			golden.Check(t, filepath.Join("testdata", "types", tc.name+".golden.json"), got, *update)
			want := got // equal to the golden file once Check passed
			again := tc.new()
			if err := decodeStrict(want, again); err != nil {
				t.Fatalf("decode golden: %v", err)
			}
			if rt := encodeIndent(t, again); !bytes.Equal(rt, want) {
				t.Errorf("golden does not round-trip:\n got: %s\nwant: %s", rt, want)
			}
		})
	}
}

func TestGoldenValues(t *testing.T) {
	load := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "types", name+".in.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	var trades []Trade
	load("trades", &trades)
	if len(trades) != 3 || !trades[0].Size.Equal(decimal.RequireFromString("12.5")) || !trades[1].Price.Equal(decimal.RequireFromString("0.47")) ||
		!trades[1].UsdcSize.Equal(decimal.RequireFromString("1.41")) || !trades[2].Size.IsZero() || trades[0].Side != Buy || trades[0].Timestamp != 1718000000 {
		t.Errorf("trades decoded wrong: %+v", trades)
	}

	var page MarketsPage
	load("markets_page", &page)
	m := page.Data[0]
	if got := m.Rewards.DailyRate(); !got.Equal(decimal.RequireFromString("30")) {
		t.Errorf("DailyRate = %s, want 30", got)
	}
	if !m.MinimumTickSize.Equal(decimal.RequireFromString("0.01")) || !m.Rewards.MaxSpread.Equal(decimal.RequireFromString("3.5")) ||
		len(m.Tokens) != 2 || m.Tokens[1].TokenID != "7112" || page.NextCursor != "Mg==" || page.Count != 3 {
		t.Errorf("market decoded wrong: %+v", m)
	}
	if !page.Data[1].MinimumTickSize.Equal(decimal.RequireFromString("0.001")) {
		t.Errorf("quoted number: %s", page.Data[1].MinimumTickSize)
	}

	var sum, merged MarketDetail
	load("market_detail_summary", &sum)
	load("market_detail_merged", &merged)
	if sum.Shape() != ShapeSummary || sum.Book != nil || sum.MarketID != 512 || sum.Event == nil || sum.Event.Title != "Weather" {
		t.Errorf("summary shape decoded wrong: %v %+v", sum.Shape(), sum)
	}
	if merged.Shape() != ShapeMerged || merged.Book == nil || merged.Book.ConditionID != "0xabc1" || !merged.Book.MinimumOrderSize.Equal(decimal.NewFromInt(5)) ||
		merged.MarketID != 512 || merged.Status != MarketStatusActive || string(merged.RawMetadata) != `{"k":"v"}` {
		t.Errorf("merged shape decoded wrong: %v %+v", merged.Shape(), merged)
	}

	var cm CatalogMarket
	load("catalog_market", &cm)
	outs, err := cm.Outcomes()
	ids, err2 := cm.TokenIDs()
	if err != nil || err2 != nil || strings.Join(outs, "|") != "Yes|No" || strings.Join(ids, "|") != "7111|7112" || len(cm.Events) != 1 {
		t.Errorf("catalog market: outcomes %v %v, ids %v %v, events %d", outs, err, ids, err2, len(cm.Events))
	}

	var env OrderEnvelope
	load("order", &env)
	if env.Order.Type != GTC || env.Order.Side != Buy || !env.Order.SizeMatched.Equal(decimal.RequireFromString("20.5")) || len(env.Order.AssociateTrades) != 2 {
		t.Errorf("order decoded wrong: %+v", env.Order)
	}
}

func TestCatalogStringArrays(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{`["Yes","No"]`, []string{"Yes", "No"}, false},
		{`[]`, []string{}, false},
		{`Yes,No`, nil, true},
		{`["Yes",1]`, nil, true},
		{`{"a":1}`, nil, true},
	}
	for _, tt := range tests {
		m := CatalogMarket{OutcomesJSON: tt.in, ClobTokenIDsJSON: tt.in}
		got, err := m.Outcomes()
		got2, err2 := m.TokenIDs()
		if (err != nil) != tt.wantErr || (err2 != nil) != tt.wantErr {
			t.Errorf("%q: err %v / %v, want error %v", tt.in, err, err2, tt.wantErr)
			continue
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || strings.Join(got2, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%q: got %q / %q, want %q", tt.in, got, got2, tt.want)
		}
		if !tt.wantErr && tt.in != "" {
			if enc := EncodeStringArray(got); enc != tt.in {
				t.Errorf("EncodeStringArray(%q) = %q, want %q", got, enc, tt.in)
			}
		}
	}
	if EncodeStringArray(nil) != "[]" {
		t.Errorf("EncodeStringArray(nil) = %q", EncodeStringArray(nil))
	}
}

func TestMarketDetailBuiltShapes(t *testing.T) {
	d := MarketDetail{MarketSummary: MarketSummary{ConditionID: "0xc", Status: "active", MarketID: 1}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "tokens") {
		t.Errorf("summary shape leaked order-book fields: %s", b)
	}
	d.Book = &Market{ConditionID: "0xc", Question: "book question", AcceptingOrders: true}
	d.Question = "summary question"
	b, err = json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back MarketDetail
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Shape() != ShapeMerged || back.Question != "summary question" || !back.Book.AcceptingOrders {
		t.Errorf("merged round trip: %s → %+v", b, back)
	}
	if ShapeSummary.String() != "summary" || ShapeMerged.String() != "merged" || MarketShape(0).String() != "unknown" {
		t.Error("MarketShape.String")
	}
	for _, bad := range []string{`[]`, `"x"`, `{"market_id":"x"}`, `{"tokens":5}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("MarketDetail accepted %s", bad)
		}
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string
	}{
		{"", false, ""},
		{"2024-06-30T00:00:00Z", true, "2024-06-30T00:00:00Z"},
		{"2024-05-30T12:00:00.123Z", true, "2024-05-30T12:00:00.123Z"},
		{"2024-06-30T02:00:00+02:00", true, "2024-06-30T00:00:00Z"},
		{"2024-06-30", true, "2024-06-30T00:00:00Z"},
		{"2024-06-30 02:00:00+02", true, "2024-06-30T00:00:00Z"},
		{"2024-06-30 00:00:00.5+00", true, "2024-06-30T00:00:00.5Z"},
		{"2024-06-30T00:00:00+00", true, "2024-06-30T00:00:00Z"},
		{"2024-06-30 00:00:00.123Z", true, "2024-06-30T00:00:00.123Z"},
		{"yesterday", false, ""},
	}
	for _, tt := range tests {
		got, ok := ParseDate(tt.in)
		if ok != tt.ok || (ok && got.Format("2006-01-02T15:04:05.999Z07:00") != tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

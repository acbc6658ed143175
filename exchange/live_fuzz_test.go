package exchange

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Fuzz targets of the decoders that read both the spec's and the live
// exchange's shapes, seeded from the tables of live_shapes_test.go.

// FuzzOrderDecode: no panic; an order that decodes has an id, one of the
// three statuses and amounts that are not negative, and re-encodes (in the
// spec's shape) to a fixed point.
func FuzzOrderDecode(f *testing.F) {
	for _, tc := range orderShapeCases {
		f.Add([]byte(tc.body))
	}
	for _, tc := range orderMissingCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var env OrderEnvelope
		if err := json.Unmarshal(data, &env); err != nil {
			return
		}
		o := env.Order
		switch {
		case o.ID == "":
			t.Fatalf("decoded without an id: %s", data)
		case o.Status != StatusLive && o.Status != StatusMatched && o.Status != StatusCanceled:
			t.Fatalf("decoded status %q", o.Status)
		case o.SizeMatched.IsNegative() || o.OriginalSize.IsNegative() || o.Price.IsNegative():
			t.Fatalf("negative amount %+v", o)
		}
		for _, ts := range []string{o.CreatedAt, o.UpdatedAt} {
			if _, ok := ParseWireTime(ts); ts != "" && !ok {
				t.Fatalf("time %q kept but does not parse", ts)
			}
		}
		checkFixedPoint(t, &env, func() any { return new(OrderEnvelope) })
	})
}

// FuzzBuilderTradeDecode: no panic; a trade that decodes has an id, a
// known status, a role and a match time that parses, and re-encodes to a
// fixed point.
func FuzzBuilderTradeDecode(f *testing.F) {
	for _, tc := range tradeShapeCases {
		f.Add([]byte(tc.body))
	}
	for _, tc := range tradeMissingCases {
		f.Add([]byte("[" + tc.body + "]"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		page, err := decodeBuilderTrades(data, FirstCursor)
		if err != nil {
			return
		}
		for _, bt := range page.Data {
			if _, err := ParseTradeStatus(bt.Status); err != nil || bt.ID == "" || (bt.Type != RoleTaker && bt.Type != RoleMaker) {
				t.Fatalf("decoded %+v", bt)
			}
			if bt.MatchedAt().IsZero() && bt.MatchTime != "0001-01-01T00:00:00Z" {
				t.Fatalf("match time %q does not parse", bt.MatchTime)
			}
		}
		checkFixedPoint(t, &page.Data, func() any { return new([]BuilderTrade) })
	})
}

// FuzzCatalogMarketDecode: no panic; a market that decodes keeps its
// outcomes and token ids in the string form, and re-encodes to a fixed
// point.
func FuzzCatalogMarketDecode(f *testing.F) {
	for _, tc := range catalogTokenCases {
		f.Add([]byte(tc.body))
	}
	f.Add([]byte(`{"clobTokenIds":[7111]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m CatalogMarket
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		if ids, err := m.TokenIDs(); err == nil && m.ClobTokenIDsJSON != "" && EncodeStringArray(ids) != m.ClobTokenIDsJSON &&
			!strings.ContainsAny(m.ClobTokenIDsJSON, " \t\r\n\\") {
			// a string that is an array of strings reads back to the same
			// array (spacing and escapes aside)
			var again []string
			if json.Unmarshal([]byte(EncodeStringArray(ids)), &again) != nil || len(again) != len(ids) {
				t.Fatalf("token ids %q read as %q", m.ClobTokenIDsJSON, ids)
			}
		}
		checkFixedPoint(t, &m, func() any { return new(CatalogMarket) })
	})
}

// FuzzParseWireTime: no panic; a time that parses is rewritten by
// formatWireTime into a form that parses to the same instant.
func FuzzParseWireTime(f *testing.F) {
	for _, s := range []string{"1726043102", "1726043102500", "2024-06-01T10:00:00Z", "2024-06-01T10:00:00.250+02:00", "2024-06-01", "", "0",
		"99999999999", "100000000000", "253402300799999", "253402300800000", "-1", "1e9", " 1726043102"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := ParseWireTime(s)
		if !ok {
			return
		}
		raw, _ := json.Marshal(s)
		iso, present, err := decodeWireTime("t", raw)
		if err != nil || !present {
			t.Fatalf("%q parses but decodeWireTime says %v, %v", s, present, err)
		}
		if at.Year() < 1970 || at.Year() > 9999 {
			// formatWireTime writes the times of Unix counts only (1970
			// on); an ISO string outside them is kept as it came.
			if iso != s {
				t.Fatalf("%q rewritten as %q", s, iso)
			}
			return
		}
		back, ok := ParseWireTime(formatWireTime(at))
		if !ok || !back.Equal(at.Truncate(time.Millisecond)) && !back.Equal(at) {
			t.Fatalf("%q → %v → %q → %v", s, at, formatWireTime(at), back)
		}
		if got, ok := ParseWireTime(iso); !ok || !got.Equal(at) && !got.Equal(at.Truncate(time.Millisecond)) {
			t.Fatalf("%q decoded as %q (%v), want %v", s, iso, got, at)
		}
	})
}

// checkFixedPoint: v encodes, its encoding decodes, and encodes again to the
// same bytes.
func checkFixedPoint(t *testing.T, v any, fresh func() any) {
	t.Helper()
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	again := fresh()
	if err := json.Unmarshal(first, again); err != nil {
		t.Fatalf("own encoding %s does not decode: %v", first, err)
	}
	second, err := json.Marshal(again)
	if err != nil || string(first) != string(second) {
		t.Fatalf("not a fixed point:\n%s\n%s", first, second)
	}
}

package importer

import (
	"bytes"
	"strings"
	"testing"
)

const (
	placeholder1 = "0x5eed000000000000000000000000000000000000000000000000000000000001"
	placeholder2 = "0x5eed000000000000000000000000000000000000000000000000000000000002"
)

// A GET /markets snapshot as the live exchange lists it, with inactive
// placeholder markets whose tokens have no token_id: they are skipped and
// named, and the rest of the snapshot is used.
func TestCatalogSkipsPlaceholders(t *testing.T) {
	c, err := ReadCatalog(bytes.NewReader(readFixture(t, "catalog_live_page.json")))
	if err != nil {
		t.Fatalf("a live snapshot with placeholders refused: %v", err)
	}
	if len(c.Markets) != 1 || c.Markets[0].ConditionID != "0xabc" || strings.Join(c.Markets[0].Tokens, ",") != "111,222" {
		t.Errorf("markets %+v", c.Markets)
	}
	if len(c.Skipped) != 2 || c.Skipped[0].ConditionID != placeholder1 || c.Skipped[1].ConditionID != placeholder2 ||
		c.Skipped[0].Reason != "a token without token_id (inactive, not accepting orders)" ||
		c.Skipped[1].Reason != "a token without token_id (closed, not accepting orders)" {
		t.Errorf("skipped %+v", c.Skipped)
	}

	// The import uses the market and its summary counts and names the
	// skipped ones.
	col, st := importFixture(t, "two_sided.jsonl", Options{Markets: c.Markets, CatalogSkipped: c.Skipped})
	if got, want := kinds(col.evs), "M111 M222 B222 B111 T111"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if len(st.CatalogSkipped) != 2 {
		t.Errorf("stats skipped %+v", st.CatalogSkipped)
	}
	line := SkippedSummary(st.CatalogSkipped)
	for _, want := range []string{"catalog: 2 markets skipped", placeholder1 + " (a token without token_id (inactive", placeholder2} {
		if !strings.Contains(line, want) {
			t.Errorf("summary %q lacks %q", line, want)
		}
	}
	if SkippedSummary(nil) != "" || !strings.HasPrefix(SkippedSummary(c.Skipped[:1]), "catalog: 1 market skipped") {
		t.Errorf("summary of none or one: %q, %q", SkippedSummary(nil), SkippedSummary(c.Skipped[:1]))
	}
}

// A market listed twice keeps its last listing, placeholder or not.
func TestCatalogLastListingWins(t *testing.T) {
	real := `{"condition_id":"0xA","minimum_tick_size":0.01,"minimum_order_size":5,"tokens":[{"token_id":"1","outcome":"Yes"},{"token_id":"2","outcome":"No"}]}`
	hole := `{"condition_id":"0xa","tokens":[{"token_id":"","outcome":"Yes"},{"token_id":"","outcome":"No"}]}`
	for _, tc := range []struct {
		in               string
		markets, skipped int
	}{
		{hole + real, 1, 0},
		{real + hole, 0, 1},
		{hole + hole, 0, 1},
		{"[" + real + "," + hole + "," + real + "]", 1, 0},
	} {
		c, err := ReadCatalog(strings.NewReader(tc.in))
		if err != nil || len(c.Markets) != tc.markets || len(c.Skipped) != tc.skipped {
			t.Errorf("%s: %+v, %v; want %d markets, %d skipped", tc.in, c, err, tc.markets, tc.skipped)
		}
	}
	// A market without condition_id still fails the snapshot.
	if _, err := ReadCatalog(strings.NewReader(`[{"condition_id":"","tokens":[{"token_id":""}]}]`)); err == nil {
		t.Error("a market without condition_id accepted")
	}
}

package recording

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
)

// marketMeta is a meta with the market's matching delay, neg-risk flag,
// question and slug.
func marketMeta() Event {
	return MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(0)}, TokenID: "111", Market: "0xm", TickSize: fixture.Dec("0.01"),
		SecondsDelay: 3, NegRisk: true, Question: `Will "it" rain in Zürich?`, Slug: "will-it-rain-zurich"})
}

// The delay, neg-risk flag, question and slug of a market survive both
// versions, and the line shows them as documented.
func TestMetaMarketFieldsRoundTrip(t *testing.T) {
	want := []Event{marketMeta(),
		MetaEvent(&Meta{Stamp: Stamp{Exchange: fixture.Ms(1)}, TokenID: "222", Market: "0xm", Question: `Will "it" rain in Zürich?`}),
		BookEvent(&Book{Stamp: Stamp{Exchange: fixture.Ms(2)}, TokenID: "111", Market: "0xm", Bids: fixture.Lv(t, "0.48:10"), Asks: fixture.Lv(t, "0.52:10")})}
	for _, name := range []string{"rec.jsonl.gz", "rec.mmrec"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			writeRecordingAs(t, path, want)
			assertEvents(t, path, want)
			_, got, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			m := got[0].Meta
			if m.SecondsDelay != 3 || !m.NegRisk || m.Question != `Will "it" rain in Zürich?` || m.Slug != "will-it-rain-zurich" {
				t.Errorf("meta read back %+v", m)
			}
		})
	}
	line := string(AppendLine(nil, marketMeta()))
	for _, f := range []string{`"seconds_delay":3`, `"neg_risk":true`, `"question":"Will \"it\" rain in Zürich?"`, `"slug":"will-it-rain-zurich"`} {
		if !strings.Contains(line, f) {
			t.Errorf("line %s lacks %s", line, f)
		}
	}
	bad := marketMeta()
	bad.Meta.SecondsDelay = -1
	if err := bad.Validate(); err == nil {
		t.Error("a negative delay is valid")
	}
	bad.Meta.SecondsDelay, bad.Meta.Slug = 0, strings.Repeat("s", MaxMetaText+1)
	if err := bad.Validate(); err == nil {
		t.Error("a slug of 4097 bytes is valid")
	}
}

package importer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
)

// importString imports the capture in, failing the test on an error.
func importString(t *testing.T, in string, opts Options) (*collect, Stats) {
	t.Helper()
	var c collect
	st, err := Import(context.Background(), strings.NewReader(in), &c, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, st)
	checkOrdered(t, c.evs)
	return &c, st
}

// A capture holding the tick_size_change of one token of a market: the
// change is the market's, so the other token gets a meta with the new tick
// and its books carry it from then on, even a snapshot of that token that
// still says the tick it had (a token repeating itself changes nothing).
func TestImportOneTokenTickChangesTheMarket(t *testing.T) {
	in := `{"event_type":"book","asset_id":"111","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000","tick_size":"0.01"}
{"event_type":"book","asset_id":"222","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000","tick_size":"0.01"}
{"event_type":"tick_size_change","asset_id":"111","market":"0xm","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1772366401000"}
{"event_type":"price_change","market":"0xm","price_changes":[{"asset_id":"222","price":"0.485","size":"5","side":"BUY"}],"timestamp":"1772366402000"}
{"event_type":"book","asset_id":"222","market":"0xm","bids":[{"price":"0.486","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366403000","tick_size":"0.01"}
`
	for _, opts := range []Options{{}, {Markets: []Market{{ConditionID: "0xm", Tokens: []string{"111", "222"}}}}} {
		c, _ := importString(t, in, opts)
		metas := map[string]string{}
		var last *recording.Book
		for _, e := range c.evs {
			if e.Kind == recording.KindMeta && e.Meta.TickSize.IsPositive() {
				metas[e.Meta.TokenID] = e.Meta.TickSize.String()
			}
			if e.Kind == recording.KindBook && e.Book.TokenID == "222" {
				last = e.Book
			}
		}
		if metas["111"] != "0.001" || metas["222"] != "0.001" {
			t.Errorf("known markets %d: tick metas %v, want 0.001 for both tokens", len(opts.Markets), metas)
		}
		ticks := 0
		for _, e := range c.evs {
			if e.Kind == recording.KindMeta && e.Meta.TickSize.IsPositive() {
				ticks++
			}
		}
		if ticks != 2 {
			t.Errorf("known markets %d: %d tick metas, want 2 (the change, for each token)", len(opts.Markets), ticks)
		}
		if last == nil || last.TickSize.String() != "0.001" {
			t.Errorf("known markets %d: token 222's book after the change: %+v, want tick 0.001", len(opts.Markets), last)
		}
	}
}

// A capture as it comes holds text frames between the messages: keep-alive
// PING and PONG, empty lines, other text. They are skipped and counted by
// kind, the messages around them imported, and errors still name the
// message and its byte offset.
func TestImportSkipsTextFrames(t *testing.T) {
	book := `{"event_type":"book","asset_id":"111","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000"}`
	trade := `{"event_type":"last_trade_price","asset_id":"111","market":"0xm","price":"0.52","size":"1","side":"BUY","timestamp":"1772366401000"}`
	in := "PONG\n" + book + "\nPING\r\n\n  \n[" + trade + "]\npong\n7\nconnection reset by peer\n" + `"PONG"` + "\n" + trade + "\nPONG"
	c, st := importString(t, in, Options{})
	if got := kinds(c.evs); got != "B111 T111 T111" {
		t.Errorf("events %s, want B111 T111 T111", got)
	}
	want := map[string]int{frameKeepAlive: 4, frameEmpty: 2, frameText: 3}
	for k, n := range want {
		if st.Frames[k] != n {
			t.Errorf("frames %q: %d, want %d (all: %v)", k, st.Frames[k], n, st.Frames)
		}
	}
	if st.Messages != 3 {
		t.Errorf("%d messages, want 3", st.Messages)
	}
	// An error after skipped frames names the message and where it starts.
	bad := "PONG\n" + book + "\nPONG\n" + `{"event_type":"book","asset_id":"1","timestamp":"1772366400000","bids":[{"price":"x","size":"1"}]}`
	_, err := Import(context.Background(), strings.NewReader(bad), &collect{}, Options{})
	var ie *Error
	if !errors.As(err, &ie) || ie.Message != 2 || ie.Offset != int64(len("PONG\n"+book+"\nPONG\n")) {
		t.Errorf("error %v, want message 2 at byte %d", err, len("PONG\n"+book+"\nPONG\n"))
	}
}

// A price_change dated before the book it follows (it came after it) is
// applied in the order it came: its book is written at the time of the
// book it follows, not sorted before it (which undid it), and it is
// counted and warned about with the market and the size of the inversion.
func TestImportChangeDatedBeforeItsBook(t *testing.T) {
	in := `{"event_type":"book","asset_id":"111","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366401000"}
{"event_type":"price_change","market":"0xm","price_changes":[{"asset_id":"111","price":"0.49","size":"7","side":"BUY"}],"timestamp":"1772366400750"}
{"event_type":"price_change","market":"0xm","price_changes":[{"asset_id":"111","price":"0.5","size":"3","side":"BUY"}],"timestamp":"1772366400900"}
{"event_type":"last_trade_price","asset_id":"111","market":"0xm","price":"0.52","size":"1","side":"BUY","timestamp":"1772366402000"}
`
	c, st := importString(t, in, Options{})
	var last *recording.Book
	for _, e := range c.evs {
		if e.Kind == recording.KindBook {
			last = e.Book
		}
	}
	if last == nil || len(last.Bids) != 3 || last.Bids[0].Price.String() != "0.5" {
		t.Fatalf("the last book written: %+v, want the snapshot with both changes applied", last)
	}
	if !last.Exchange.Equal(time.UnixMilli(1772366401000)) {
		t.Errorf("the late changes' book is at %s, want the time of the book they follow", last.Exchange)
	}
	if st.OutOfOrder != 2 {
		t.Errorf("%d out-of-order updates counted, want 2", st.OutOfOrder)
	}
	found := false
	for _, w := range st.Warnings {
		found = found || strings.Contains(w, "market 0xm: 2 book updates dated before") && strings.Contains(w, "250ms")
	}
	if !found {
		t.Errorf("no warning naming the market and the 250ms inversion: %q", st.Warnings)
	}
}

// The import warns about what makes a market unusable that it used to
// pass over in silence: no tick size anywhere, and a token that its
// catalog market does not list.
func TestImportWarnsNoTickAndStrangerToken(t *testing.T) {
	book := func(tok, market, tick string) string {
		s := `{"event_type":"book","asset_id":"` + tok + `","market":"` + market + `","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000"`
		if tick != "" {
			s += `,"tick_size":"` + tick + `"`
		}
		return s + "}\n"
	}
	in := book("1", "0xnotick", "") + book("2", "0xnotick", "") + book("3", "0xcat", "0.01") + book("4", "0xcat", "0.01") + book("5", "0xcat", "0.01")
	_, st := importString(t, in, Options{Markets: []Market{{ConditionID: "0xcat", Tokens: []string{"3", "4"}}}})
	want := []string{"market 0xnotick: no tick size", "market 0xcat: token 5 is not one of its tokens in the catalog (3, 4)"}
	for _, w := range want {
		found := false
		for _, got := range st.Warnings {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("no warning %q in %q", w, st.Warnings)
		}
	}
	for _, got := range st.Warnings {
		if strings.Contains(got, "0xcat: no tick") {
			t.Errorf("a market with a tick warned: %q", got)
		}
	}
	// With --tick, the market has one.
	_, st = importString(t, in, Options{Terms: Terms{Tick: fixture.Dec("0.01")}})
	for _, got := range st.Warnings {
		if strings.Contains(got, "no tick") {
			t.Errorf("with a tick from the flags: %q", got)
		}
	}
}

// A catalog market's matching delay, neg-risk flag, question and slug go
// into the first metas of its tokens.
func TestImportCarriesCatalogDelayAndNames(t *testing.T) {
	cat := `{"condition_id":"0xm","question":"Will it rain?","market_slug":"will-it-rain","minimum_tick_size":0.01,"minimum_order_size":5,
"seconds_delay":3,"neg_risk":true,"tokens":[{"token_id":"111","outcome":"Yes"},{"token_id":"222","outcome":"No"}]}`
	ms, err := LoadCatalog(strings.NewReader(cat))
	if err != nil {
		t.Fatal(err)
	}
	in := `{"event_type":"book","asset_id":"111","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000"}`
	c, _ := importString(t, in, Options{Markets: ms})
	n := 0
	for _, e := range c.evs {
		if e.Kind != recording.KindMeta {
			continue
		}
		n++
		m := e.Meta
		if m.SecondsDelay != 3 || !m.NegRisk || m.Question != "Will it rain?" || m.Slug != "will-it-rain" {
			t.Errorf("meta of %s: %+v", m.TokenID, m)
		}
	}
	if n != 2 {
		t.Errorf("%d metas, want one per token", n)
	}
	if _, err := LoadCatalog(strings.NewReader(strings.Replace(cat, `"seconds_delay":3`, `"seconds_delay":2.5`, 1))); err == nil {
		t.Error("a delay of 2.5 s accepted")
	}
}

// A tick_size_change of one token that comes before the other token's
// first book: that book, still saying the old tick, does not undo it.
func TestImportTickChangeBeforeOtherTokensFirstBook(t *testing.T) {
	in := `{"event_type":"book","asset_id":"111","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366400000","tick_size":"0.01"}
{"event_type":"tick_size_change","asset_id":"111","market":"0xm","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1772366401000"}
{"event_type":"book","asset_id":"222","market":"0xm","bids":[{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"}],"timestamp":"1772366402000","tick_size":"0.01"}
`
	c, _ := importString(t, in, Options{Markets: []Market{{ConditionID: "0xm", Tokens: []string{"111", "222"}}}})
	for _, e := range c.evs {
		if e.Kind == recording.KindBook && e.Book.TokenID == "222" && e.Book.TickSize.String() != "0.001" {
			t.Errorf("token 222's first book after 111's change: tick %s, want 0.001", e.Book.TickSize)
		}
	}
}

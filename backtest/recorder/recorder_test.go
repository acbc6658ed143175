package recorder

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// recSink collects events; it can be told to fail.
type recSink struct {
	mu     sync.Mutex
	events []recording.Event
	fail   error
}

func (s *recSink) Write(e recording.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.events = append(s.events, e)
	return nil
}

func (s *recSink) kinds() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, e := range s.events {
		switch e.Kind {
		case recording.KindBook:
			fmt.Fprintf(&b, "B%s ", e.Book.TokenID)
		case recording.KindTrade:
			fmt.Fprintf(&b, "T%s ", e.Trade.TokenID)
		case recording.KindMeta:
			fmt.Fprintf(&b, "M%s ", e.Meta.TokenID)
		}
	}
	return strings.TrimSpace(b.String())
}

const rMkt2 = "0xsecond"

func newRecSetup(t *testing.T, mut func(*Config)) (*Recorder, *fixture.FakeExchange, *recSink, *fixture.Clock) {
	t.Helper()
	f := fixture.NewFakeExchange()
	clk := &fixture.Clock{T: fixture.T0}
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.5:100"), fixture.Lv(t, "0.52:100"))
	f.SetBook(t, fixture.No, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.48:100"), fixture.Lv(t, "0.5:100"))
	f.SetBook(t, "333", rMkt2, "0.001", fixture.T0, fixture.Lv(t, "0.3:10"), fixture.Lv(t, "0.31:10"))
	f.SetBook(t, "444", rMkt2, "0.001", fixture.T0, fixture.Lv(t, "0.69:10"), fixture.Lv(t, "0.7:10"))
	sink := &recSink{}
	cfg := Config{
		Markets: []Market{
			{ConditionID: fixture.Market, Tokens: [2]string{fixture.Yes, fixture.No}, Tick: fixture.Dec("0.01"), MinSize: fixture.Dec("5"), EndDate: fixture.T0.Add(48 * time.Hour),
				Rewards: strategy.RewardTerms{MaxSpread: fixture.Dec("3"), MinSize: fixture.Dec("20"), DailyRate: fixture.Dec("100")}},
			{ConditionID: rMkt2, Tokens: [2]string{"333", "444"}, Tick: fixture.Dec("0.001"), MinSize: fixture.Dec("5")},
		},
		Clock: clk,
	}
	if mut != nil {
		mut(&cfg)
	}
	r, err := New(f, sink, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, f, sink, clk
}

// runPolls runs the recorder for n polls (the fake clock's Sleep advances
// time; the context ends after the nth poll).
func runPolls(t *testing.T, r *Recorder, clk *fixture.Clock, n int, between func(i int)) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.cfg.Clock = &hookClock{Clock: clk, onSleep: func() {
		i := r.Stats().Polls
		if i >= n {
			cancel()
			return
		}
		if between != nil {
			between(i)
		}
	}}
	return r.Run(ctx)
}

type hookClock struct {
	*fixture.Clock
	onSleep func()
}

func (h *hookClock) Sleep(ctx context.Context, d time.Duration) error {
	h.onSleep()
	return h.Clock.Sleep(ctx, d)
}

func TestRecorderWritesChanges(t *testing.T) {
	r, f, sink, clk := newRecSetup(t, nil)
	f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "3", fixture.T0.Add(-5*time.Second), "0xold") // before the start: not recorded
	err := runPolls(t, r, clk, 4, func(i int) {
		now := clk.Now().Add(500 * time.Millisecond)
		switch i {
		case 1: // a trade and a changed YES book; the rest unchanged
			f.AddTrade(fixture.Market, 0, exchange.Sell, "0.5", "40", now, "0xa")
			f.SetBook(t, fixture.Yes, fixture.Market, "0.01", now, fixture.Lv(t, "0.5:60"), fixture.Lv(t, "0.52:100"))
		case 2: // the NO book's tick changes; a trade on the second market
			f.SetBook(t, fixture.No, fixture.Market, "0.001", now, fixture.Lv(t, "0.481:100"), fixture.Lv(t, "0.5:100"))
			f.AddTrade(rMkt2, 1, exchange.Buy, "0.7", "2", now, "0xb")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "M111 M222 M333 M444 " + // metas
		"B111 B222 B333 B444 " + // poll 1: every book is new
		"T111 B111 " + // poll 2
		"T444 M222 B222" // poll 3: trade, then the tick change before the book; poll 4: nothing
	if got := sink.kinds(); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	var last time.Time
	for i, e := range sink.events {
		if err := e.Validate(); err != nil {
			t.Errorf("event %d: %v", i, err)
		}
		if e.Time().Before(last) {
			t.Errorf("event %d at %s before %s", i, e.Time(), last)
		}
		last = e.Time()
	}
	m := sink.events[0].Meta
	if !m.TickSize.Equal(fixture.Dec("0.01")) || !m.MinOrderSize.Equal(fixture.Dec("5")) || !m.EndDate.Equal(fixture.T0.Add(48*time.Hour)) || m.Market != fixture.Market || !m.Received.Equal(fixture.T0) ||
		!m.RewardMaxSpread.Equal(fixture.Dec("3")) || !m.RewardMinSize.Equal(fixture.Dec("20")) || !m.RewardDailyRate.Equal(fixture.Dec("100")) {
		t.Errorf("meta %+v", m)
	}
	b := sink.events[4].Book
	if b.Market != fixture.Market || !b.Exchange.Equal(fixture.T0) || b.Received.IsZero() || !b.Bids[0].Price.Equal(fixture.Dec("0.5")) || !b.TickSize.Equal(fixture.Dec("0.01")) {
		t.Errorf("first book %+v", b)
	}
	tr := sink.events[8].Trade
	if tr.TakerSide != exchange.Sell || !tr.Size.Equal(fixture.Dec("40")) || tr.Market != fixture.Market || !tr.Exchange.Equal(fixture.T0.Add(500*time.Millisecond).Truncate(time.Second)) {
		t.Errorf("trade %+v", tr)
	}
	st := r.Stats()
	if st.Polls != 4 || st.Books != 6 || st.Trades != 2 || st.Metas != 5 || st.Events != 13 || st.Unchanged != 10 || st.Errors != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestRecorderIsolatesAMissingMarket(t *testing.T) {
	r, f, sink, clk := newRecSetup(t, nil)
	f.Missing["444"] = true
	f.FailTrades = errors.New("tape down")
	if err := runPolls(t, r, clk, 2, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := sink.kinds(), "M111 M222 M333 M444 B111 B222"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	st := r.Stats()
	if st.Dropped != 1 || st.Errors != 2 {
		t.Errorf("stats %+v", st)
	}
	// A transient failure is counted and the next poll reads again.
	f.FailBooks = errors.New("connection reset")
	if err := r.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Errors != 4 || st.Dropped != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestRecorderSkipsInvalidAndStopsOnSinkFailure(t *testing.T) {
	r, f, sink, clk := newRecSetup(t, func(c *Config) { c.TradeLimit = -1 })
	f.SetBook(t, "333", rMkt2, "0.001", fixture.T0, fixture.Lv(t, "0.3000001:10"), nil) // 7 decimals
	if err := runPolls(t, r, clk, 1, nil); err != nil {
		t.Fatal(err)
	}
	if f.TradeCalls != 0 {
		t.Errorf("TradeLimit -1 read trades")
	}
	if st := r.Stats(); st.Skipped != 1 || st.Books != 3 {
		t.Errorf("stats %+v", st)
	}
	if strings.Contains(sink.kinds(), "B333") {
		t.Error("invalid book written")
	}
	sink.fail = errors.New("disk full")
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.5:1"), nil)
	if err := r.Poll(context.Background()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("sink failure: %v", err)
	}
}

func TestRecorderGap(t *testing.T) {
	r, f, _, clk := newRecSetup(t, func(c *Config) { c.TradeLimit = 2 })
	err := runPolls(t, r, clk, 3, func(i int) {
		now := clk.Now()
		for j := range 2 + i { // more new trades than the limit
			f.AddTrade(fixture.Market, 0, exchange.Buy, "0.52", "1", now, fmt.Sprintf("0x%d-%d", i, j))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Gaps != 2 || st.Trades != 4 {
		t.Errorf("stats %+v", st)
	}
}

func TestNewRecorderErrors(t *testing.T) {
	ok := Market{ConditionID: "0xm", Tokens: [2]string{"1", "2"}}
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no markets"},
		{Config{Markets: []Market{{ConditionID: "0xm", Tokens: [2]string{"1", ""}}}}, "two distinct"},
		{Config{Markets: []Market{ok, ok}}, "twice"},
		{Config{Markets: []Market{ok, {ConditionID: "0xn", Tokens: [2]string{"3", "1"}}}}, "two markets"},
	} {
		if _, err := New(fixture.NewFakeExchange(), &recSink{}, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err %v, want %q", err, tt.want)
		}
	}
	if _, err := New(nil, &recSink{}, Config{Markets: []Market{ok}}); err == nil {
		t.Error("nil source accepted")
	}
}

// TestRecorderToFile records through a Writer, in both format versions
// (version 2 by default, version 1 for a .jsonl.gz name), and reads the
// file back.
func TestRecorderToFile(t *testing.T) {
	for _, name := range []string{"rec.mmrec", "rec.jsonl.gz"} {
		t.Run(name, func(t *testing.T) { recordToFile(t, filepath.Join(t.TempDir(), name)) })
	}
}

func recordToFile(t *testing.T, path string) {
	w, err := recording.NewWriter(path, recording.WithSource("mmbot record"))
	if err != nil {
		t.Fatal(err)
	}
	f := fixture.NewFakeExchange()
	clk := &fixture.Clock{T: fixture.T0}
	f.SetBook(t, fixture.Yes, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.5:100"), fixture.Lv(t, "0.52:100"))
	f.SetBook(t, fixture.No, fixture.Market, "0.01", fixture.T0, fixture.Lv(t, "0.48:100"), fixture.Lv(t, "0.5:100"))
	r, err := New(f, w, Config{Markets: []Market{{ConditionID: fixture.Market, Tokens: [2]string{fixture.Yes, fixture.No}, Tick: fixture.Dec("0.01")}}, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	err = runPolls(t, r, clk, 3, func(i int) {
		f.AddTrade(fixture.Market, i%2, exchange.Buy, "0.52", "1", clk.Now(), fmt.Sprint(i))
		f.SetBook(t, fixture.Yes, fixture.Market, "0.01", clk.Now(), fixture.Lv(t, "0.5:"+fmt.Sprint(100+i)), fixture.Lv(t, "0.52:100"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.Count() != r.Stats().Events {
		t.Errorf("writer %d events, recorder %d", w.Count(), r.Stats().Events)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Bytes() == 0 {
		t.Error("Writer.Bytes is 0 after Close")
	}
	rd, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	n := 0
	for e, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		_ = e
		n++
	}
	if n != w.Count() || rd.Header().Source != "mmbot record" {
		t.Errorf("read %d events of %d, header %+v", n, w.Count(), rd.Header())
	}
	if want, _ := recording.FormatForPath(path); rd.Header().Version != int(want) {
		t.Errorf("%s: version %d, want %d", path, rd.Header().Version, want)
	}
}

// For one token, events of one time follow recording.SameTimeRank (meta,
// trade, book). A poll reads trades before books, so a tick change found
// in the books would go after a trade of the same clock reading: the
// recorder stamps it a nanosecond later instead.
func TestRecorderSameTimeOrder(t *testing.T) {
	r, f, sink, clk := newRecSetup(t, nil)
	err := runPolls(t, r, clk, 2, func(i int) {
		now := clk.Now()
		f.AddTrade(fixture.Market, 1, exchange.Sell, "0.48", "5", now, "0xno")
		f.SetBook(t, fixture.No, fixture.Market, "0.001", now, fixture.Lv(t, "0.481:95"), fixture.Lv(t, "0.5:100"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sink.kinds(), "M111 M222 M333 M444 B111 B222 B333 B444 T222 M222 B222"; got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	type last struct {
		t    time.Time
		rank int
	}
	byTok := map[string]last{}
	for i, e := range sink.events {
		if i > 0 && e.Time().Before(sink.events[i-1].Time()) {
			t.Errorf("event %d out of time order", i)
		}
		rk := recording.SameTimeRank(e.Kind)
		if l, ok := byTok[e.TokenID()]; ok && l.t.Equal(e.Time()) && rk < l.rank {
			t.Errorf("event %d: %s of %s at %s after a later-ranked event of the same time", i, e.Kind, e.TokenID(), e.Time())
		}
		byTok[e.TokenID()] = last{e.Time(), rk}
	}
	tr, meta := sink.events[8].Trade, sink.events[9].Meta
	if d := meta.Received.Sub(tr.Received); d != time.Nanosecond {
		t.Errorf("tick change %s after the trade, want 1ns", d)
	}
}

//go:build mmbot_crashpoint

package daemon

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

var crashpointCases = []struct {
	in            string
	intents, send int
	err           string
}{
	{"", 0, 0, ""},
	{"after-intents:3", 3, 0, ""},
	{"after-send:1", 0, 1, ""},
	{"after-send:12", 0, 12, ""},
	{"after-intents:0", 0, 0, "N >= 1"},
	{"after-intents:-2", 0, 0, "N >= 1"},
	{"after-intents", 0, 0, "want after-intents:N"},
	{"after-send:x", 0, 0, "want after-intents:N"},
	{"before-send:2", 0, 0, "unknown crash point"},
	{":2", 0, 0, "unknown crash point"},
}

func TestParseCrashpoint(t *testing.T) {
	for _, c := range crashpointCases {
		cp, err := parseCrashpoint(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseCrashpoint(%q) error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseCrashpoint(%q): %v", c.in, err)
			continue
		}
		if cp.afterIntents != c.intents || cp.afterSend != c.send {
			t.Errorf("parseCrashpoint(%q) = intents %d send %d, want %d %d", c.in, cp.afterIntents, cp.afterSend, c.intents, c.send)
		}
	}
}

func FuzzParseCrashpoint(f *testing.F) {
	for _, c := range crashpointCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cp, err := parseCrashpoint(s)
		if err != nil {
			return
		}
		if cp.afterIntents < 0 || cp.afterSend < 0 || (cp.afterIntents > 0 && cp.afterSend > 0) {
			t.Fatalf("parseCrashpoint(%q) = %+v", s, cp)
		}
		if s != "" && cp.afterIntents == 0 && cp.afterSend == 0 {
			t.Fatalf("parseCrashpoint(%q) accepted a value that sets no crash point", s)
		}
	})
}

// nopJournal and nopVenue count calls; their results do not matter here.
type nopJournal struct{ intents int }

func (j *nopJournal) RecordIntents([]loop.Intent, time.Time) error   { j.intents++; return nil }
func (j *nopJournal) Apply(*loop.Batch) error                        { return nil }
func (j *nopJournal) NonFinal() ([]loop.JournaledOrder, error)       { return nil, nil }
func (j *nopJournal) Positions() (map[string]decimal.Decimal, error) { return nil, nil }

type nopVenue struct{ places int }

func (v *nopVenue) Books(context.Context, []string) ([]exchange.OrderBook, error) { return nil, nil }
func (v *nopVenue) Trades(context.Context, exchange.TradesParams) ([]exchange.Trade, error) {
	return nil, nil
}
func (v *nopVenue) PlaceOrders(context.Context, []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	v.places++
	return nil, errors.New("lost answer")
}
func (v *nopVenue) CancelOrder(context.Context, string) (*exchange.CancelResult, error) {
	return nil, nil
}
func (v *nopVenue) Order(context.Context, string) (*exchange.Order, error) { return nil, nil }
func (v *nopVenue) Budget(time.Time) exchange.Budget                       { return exchange.Budget{} }

func TestCrashpointKillsAtTheNthEvent(t *testing.T) {
	one := []loop.Intent{{Hash: "0x1"}}
	for _, c := range []struct {
		spec   string
		intent bool // the crash point counts intents commits (else sends)
		n      int
	}{{"after-intents:3", true, 3}, {"after-send:2", false, 2}, {"after-send:1", false, 1}} {
		cp, err := parseCrashpoint(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		kills, at := 0, 0
		events := 0
		cp.kill = func() { kills++; at = events }
		j, v := &nopJournal{}, &nopVenue{}
		wj, wv := cp.journal(j), cp.venue(v)
		for range 6 {
			if c.intent {
				_ = wj.RecordIntents(nil, time.Time{}) // an empty commit is not counted
				events++
				_ = wj.RecordIntents(one, time.Time{})
			} else {
				events++
				_, _ = wv.PlaceOrders(context.Background(), nil)
			}
		}
		if kills != 1 || at != c.n {
			t.Errorf("%s: killed %d times, at event %d; want once at %d", c.spec, kills, at, c.n)
		}
		if c.intent && j.intents != 12 || !c.intent && v.places != 6 {
			t.Errorf("%s: the wrapped calls did not all reach the real journal and venue (%d, %d)", c.spec, j.intents, v.places)
		}
	}
}

func TestCrashpointUnsetWrapsNothing(t *testing.T) {
	cp, err := parseCrashpoint("")
	if err != nil {
		t.Fatal(err)
	}
	j, v := &nopJournal{}, &nopVenue{}
	if cp.journal(j) != loop.Journal(j) || cp.venue(v) != loop.Venue(v) {
		t.Fatal("an unset crash point wrapped the journal or the venue")
	}
}

func TestConfigEnvironDropsOnlyTheCrashpoint(t *testing.T) {
	in := []string{"HOME=/root", crashpointEnv + "=after-send:2", "MMBOT_LOG_LEVEL=debug", crashpointEnv + "X=1"}
	got := ConfigEnviron(in)
	want := []string{"HOME=/root", "MMBOT_LOG_LEVEL=debug", crashpointEnv + "X=1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ConfigEnviron = %q, want %q", got, want)
	}
}

package replay

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// tickBookAt is a book of token at t (ms) with the given tick size, its
// levels on the finer grid: the quotes around its mid are off a 0.01 grid.
func tickBookAt(tb testing.TB, at int, token, tick string) recording.Event {
	bid, ask := "0.493:100", "0.515:100"
	if token == synthetic.TokN {
		bid, ask = "0.485:100", "0.507:100"
	}
	e := bookAt(tb, at, token, []string{bid}, []string{ask})
	e.Book.TickSize = fixture.Dec(tick)
	return e
}

// oneTokenTick is a recording in which the tick changes from 0.01 to 0.001
// at 1 s by a tick_size_change of the YES token only (a meta of that token):
// the NO token's books go on carrying 0.01, as in a capture that holds the
// change of one token.
func oneTokenTick(tb testing.TB, until int) []recording.Event {
	evs := twoBooks(tb)
	evs = append(evs, recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(1000)},
		TokenID: synthetic.TokY, Market: synthetic.Cond, TickSize: fixture.Dec("0.001")}))
	for at := 1000; at <= until; at += 500 {
		evs = append(evs, tickBookAt(tb, at, synthetic.TokY, "0.001"), tickBookAt(tb, at, synthetic.TokN, "0.01"))
	}
	return evs
}

// A tick change of one token changes the market's grid: after it, orders
// on the new grid are accepted for both tokens, whatever tick the other
// token's books still carry; before it, they are refused.
func TestReplayOneTokenTickChangesTheMarket(t *testing.T) {
	r, _ := newTestReplay(t, oneTokenTick(t, 5000), fillmodel.Latency{})
	var s Signer
	before, _ := item(t, &s, synthetic.TokN, exchange.Buy, "0.455", "10")
	if res := place(t, r, before); res[0].Success || !strings.Contains(res[0].ErrorMsg, "tick") {
		t.Fatalf("an order off the 0.01 grid before the change: %+v, want refused", res[0])
	}
	if err := r.Sleep(context.Background(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{synthetic.TokY, synthetic.TokN} {
		it, _ := item(t, &s, tok, exchange.Buy, "0.455", "10")
		if res := place(t, r, it); !res[0].Success {
			t.Errorf("%s: an order on the new 0.001 grid after the change: %s", tok, res[0].ErrorMsg)
		}
	}
}

// A backtest of a recording with a one-token tick change: the loop logs
// the change once and quotes on the new grid, with no order refused for
// its tick after the replacement.
func TestRunOneTokenTickChange(t *testing.T) {
	cfg := benchRunConfig(t)
	var buf bytes.Buffer
	cfg.Log = zerolog.New(&buf)
	res, err := Run(context.Background(), &SliceSource{Events: oneTokenTick(t, 300_000)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), loop.MsgTickChanged); n != 1 {
		t.Errorf("%d tick-change lines in 5 simulated minutes, want 1", n)
	}
	if res.Total.OrdersSent == 0 {
		t.Fatal("no order sent")
	}
	if n := strings.Count(buf.String(), "exchange refused the order"); n > 0 {
		var first string
		for _, line := range strings.Split(buf.String(), "\n") {
			if strings.Contains(line, "exchange refused the order") {
				first = line
				break
			}
		}
		t.Errorf("%d orders refused by the exchange, the first: %s", n, first)
	}
}

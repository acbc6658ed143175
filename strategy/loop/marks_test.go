package loop

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// TestMarkCache checks the kept marks against valuing every token each
// time (the sum of accounting.markedToken over accounting.tokens), as
// fills, reversals and fair values change or stay, including tokens of no
// configured market and markets without a fair value.
func TestMarkCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	l := &Loop{byToken: map[string]tokenRef{}, pos: map[string]decimal.Decimal{}}
	var toks []string
	for m := range 4 {
		l.markets = append(l.markets, &marketRun{})
		for o := range 2 {
			tok := fmt.Sprintf("tok-%d-%d", m, o)
			l.byToken[tok] = tokenRef{market: m, outcome: strategy.Outcome(o)}
			toks = append(toks, tok)
		}
	}
	toks = append(toks, "unconfigured")
	l.pos["unconfigured"] = decimal.New(7, 0)
	l.acct.touch()
	price := func() decimal.Decimal { return decimal.New(int64(1+rng.IntN(99)), -2) }
	for step := range 3000 {
		mark := l.markFunc()
		switch rng.IntN(6) {
		case 0:
			mr := l.markets[rng.IntN(len(l.markets))]
			mr.fair, mr.hasFair = 0.05+0.9*rng.Float64(), rng.IntN(5) > 0
		case 1:
			tok := toks[rng.IntN(len(toks))]
			held := l.pos[tok]
			size := decimal.New(int64(1+rng.IntN(50)), 0)
			if rng.IntN(2) == 0 {
				l.acct.fill(tok, exchange.Buy, price(), size, held)
				l.pos[tok] = held.Add(size)
			} else if held.IsPositive() {
				size = decimal.Min(size, held)
				l.acct.fill(tok, exchange.Sell, price(), size, held)
				l.pos[tok] = held.Sub(size)
			}
		case 2:
			tok := toks[rng.IntN(len(toks))]
			if held := l.pos[tok]; held.IsPositive() {
				l.pos[tok] = held.Sub(decimal.New(1, 0))
				l.acct.reverse(tok, exchange.Buy, price(), decimal.New(1, 0), l.pos[tok])
			}
		case 3:
			l.acct.init(l.pos, mark)
		}
		want := decimal.Zero
		for tok := range l.acct.tokens(l.pos) {
			want = want.Add(l.acct.markedToken(tok, l.pos[tok], mark))
		}
		got, realized := l.marks.pnl(l, mark)
		if !got.Equal(want) || !realized.Equal(l.acct.totalRealized()) {
			t.Fatalf("step %d: marked %s realized %s, want %s and %s", step, got, realized, want, l.acct.totalRealized())
		}
		for _, tok := range toks {
			if g, w := l.marks.token(l, tok, mark), l.acct.markedToken(tok, l.pos[tok], mark); !g.Equal(w) {
				t.Fatalf("step %d: token %s marked %s, want %s", step, tok, g, w)
			}
		}
	}
}

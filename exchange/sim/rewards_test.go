package sim

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
)

var rewardEpoch = time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)

func withStart(t time.Time) setupOpt { return func(c *Config) { c.Start = t } }

// payingMarket gives the first open market with a 0.01 tick a program of
// 3 cents, 20 shares and 1440 a day: exactly 1 a minute.
func payingMarket(env *testEnv) *mstate {
	env.t.Helper()
	for _, s := range env.ex.markets {
		if !s.closed && !s.m.NegRisk && s.m.TickSize.Equal(decimal.RequireFromString("0.01")) && s.m.MinOrderSize.LessThanOrEqual(decimal.NewFromInt(10)) {
			s.m.Rewards = catalog.Rewards{MaxSpread: decimal.NewFromInt(3), MinSize: decimal.NewFromInt(20), DailyRate: decimal.NewFromInt(1440)}
			return s
		}
	}
	env.t.Fatal("no open market with a 0.01 tick")
	return nil
}

// earned is the wallet's earnings in one market, in base units.
func earned(t *testing.T, ex *Exchange, wallet, cond string) (exchange.Fixed, RewardEarning) {
	t.Helper()
	for _, m := range ex.RewardEarnings(wallet).Markets {
		if m.ConditionID == cond {
			f, err := exchange.FixedFromDecimal(m.Earned)
			if err != nil {
				t.Fatal(err)
			}
			return f, m
		}
	}
	return 0, RewardEarning{}
}

// Two accounts with known orders share the pool as computed by hand.
func TestRewardsProRata(t *testing.T) {
	env := setup(t, 2, withStart(rewardEpoch))
	s := payingMarket(env)
	a, b := env.accs[0], env.accs[1]
	// A: BUY YES 0.49 × 100 and BUY NO 0.49 × 100 (a YES ask at 0.51): the
	// mid is 0.50; each is 0.01 from it: (2/3)² × 100 = 400/9 a side,
	// Q_min = 400/9.
	a.place(t, a.order(t, s, 0, exchange.Buy, "0.49", "100", exchange.GTC), a.order(t, s, 1, exchange.Buy, "0.49", "100", exchange.GTC))
	// B: BUY YES 0.48 × 60, 0.02 from the mid: (1/3)² × 60 = 20/3, one
	// side only: a third counts, Q_min = 20/9. BUY YES 0.49 × 10 is below
	// the 20-share minimum and a SELL YES 0.53 × 50 is at the max spread:
	// neither scores.
	b.place(t, b.order(t, s, 0, exchange.Buy, "0.48", "60", exchange.GTC), b.order(t, s, 0, exchange.Buy, "0.49", "10", exchange.GTC),
		b.order(t, s, 0, exchange.Sell, "0.53", "50", exchange.GTC))
	// Shares 20/21 and 1/21 of 1 a minute; three minutes in one step.
	if err := env.ex.Advance(3 * time.Minute); err != nil {
		t.Fatal(err)
	}
	ea, ra := earned(t, env.ex, a.creds.Wallet, s.m.ConditionID)
	eb, rb := earned(t, env.ex, b.creds.Wallet, s.m.ConditionID)
	if ea != 2_857_142 || eb != 142_857 { // floor(3 × 10⁶ × 20/21), floor(3 × 10⁶ / 21)
		t.Fatalf("A earned %s, B %s; want 2.857142 and 0.142857", ea, eb)
	}
	if ra.Samples != 3 || rb.Samples != 3 || !approxEq(ra.Share, 20.0/21, 1e-6) || !approxEq(rb.Share, 1.0/21, 1e-6) {
		t.Fatalf("reports %+v %+v", ra, rb)
	}
	if got := env.ex.RewardsPaid(s.m.ConditionID); !got.Equal(decimal.RequireFromString("2.999999")) {
		t.Fatalf("paid %s", got)
	}
	// Less than a minute later: no new sample.
	if err := env.ex.Advance(59 * time.Second); err != nil {
		t.Fatal(err)
	}
	if ea2, _ := earned(t, env.ex, a.creds.Wallet, s.m.ConditionID); ea2 != ea {
		t.Fatalf("paid between samples: %s", ea2)
	}

	// The account reads its own earnings over HTTP.
	var rep RewardReport
	getAuthed(t, env, a, "/rewards/earnings", &rep)
	if !rep.Total.Equal(decimal.RequireFromString("2.857142")) || len(rep.Markets) != 1 || rep.Markets[0].ConditionID != s.m.ConditionID {
		t.Fatalf("GET /rewards/earnings: %+v", rep)
	}
	resp, err := http.Get(env.urls.CLOB + "/rewards/earnings")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated read: %d", resp.StatusCode)
	}
}

// Outside [0.10, 0.90] one-sided liquidity earns nothing: only the account
// quoting both sides is paid.
func TestRewardsTwoSidedOutsideBand(t *testing.T) {
	env := setup(t, 2, withStart(rewardEpoch))
	s := payingMarket(env)
	a, b := env.accs[0], env.accs[1]
	// A: YES bid 0.94 × 50, YES ask 0.96 (NO bid 0.04) × 50: mid 0.95.
	a.place(t, a.order(t, s, 0, exchange.Buy, "0.94", "50", exchange.GTC), a.order(t, s, 1, exchange.Buy, "0.04", "50", exchange.GTC))
	// B: a larger one-sided bid at the same price.
	b.place(t, b.order(t, s, 0, exchange.Buy, "0.94", "500", exchange.GTC))
	if err := env.ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	ea, _ := earned(t, env.ex, a.creds.Wallet, s.m.ConditionID)
	eb, _ := earned(t, env.ex, b.creds.Wallet, s.m.ConditionID)
	if ea != 1_000_000 || eb != 0 {
		t.Fatalf("A earned %s, B %s; want all of 1 to A", ea, eb)
	}
}

// The simulator's own background maker is scored like any account: with
// the flow on, it earns, and the two accounts split the rest in the ratio
// of their scores.
func TestRewardsFlowMakerCounted(t *testing.T) {
	env := setup(t, 2, withStart(rewardEpoch), withFlow(true), func(c *Config) {
		c.Flow.Volatility, c.Flow.TakerRate, c.Flow.JumpRate = 0, -1, 0
	})
	s := payingMarket(env)
	a, b := env.accs[0], env.accs[1]
	mid := env.midOf(s)
	// Whole cents inside the ladder: A one cent or a little less from the
	// mid on both sides, B two cents or a little less below it.
	bidA, askA, bidB := math.Ceil(100*mid-1.0001)/100, math.Floor(100*mid+1.0001)/100, math.Ceil(100*mid-2.0001)/100
	p := func(x float64) string { return decimal.NewFromFloat(x).Round(2).String() }
	a.place(t, a.order(t, s, 0, exchange.Buy, p(bidA), "100", exchange.GTC), a.order(t, s, 1, exchange.Buy, p(1-askA), "100", exchange.GTC))
	b.place(t, b.order(t, s, 0, exchange.Buy, p(bidB), "60", exchange.GTC))
	if got := env.midOf(s); math.Abs(got-mid) > 1e-9 {
		t.Fatalf("our orders moved the mid from %v to %v", mid, got)
	}
	// By hand: ((v − s)/v)² × size with v = 0.03; A two-sided, B one-sided
	// (a third counts at a mid inside [0.10, 0.90]).
	sq := func(d float64) float64 { r := (0.03 - d) / 0.03; return r * r }
	qa := min(sq(mid-bidA)*100, sq(askA-mid)*100)
	qa = max(qa, max(sq(mid-bidA)*100, sq(askA-mid)*100)/3)
	qb := sq(mid-bidB) * 60 / 3
	if err := env.ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	ea, _ := earned(t, env.ex, a.creds.Wallet, s.m.ConditionID)
	eb, _ := earned(t, env.ex, b.creds.Wallet, s.m.ConditionID)
	var others exchange.Fixed
	for _, w := range env.ex.RewardWallets() {
		if w != strings.ToLower(a.creds.Wallet) && w != strings.ToLower(b.creds.Wallet) {
			e, _ := earned(t, env.ex, w, s.m.ConditionID)
			others += e
		}
	}
	t.Logf("A %s, B %s, the simulator's makers %s", ea, eb, others)
	if others <= 0 {
		t.Fatal("the simulator's makers earned nothing")
	}
	if ea <= 0 || eb <= 0 || !approxEq(float64(ea)/float64(eb), qa/qb, 0.001*qa/qb) {
		t.Fatalf("A %s : B %s, want %.4f : 1 (mid %v)", ea, eb, qa/qb, mid)
	}
	if paid := ea + eb + others; paid > 1_000_000 || paid < 1_000_000-10 {
		t.Fatalf("paid %s of 1", paid)
	}
}

// midOf is the YES book's mid on the 0.005 grid of a 0.01-tick market.
func (env *testEnv) midOf(s *mstate) float64 {
	env.t.Helper()
	bid, ask, err := env.ex.eng.BestBidAsk(s.m.TokenIDs[0])
	if err != nil {
		env.t.Fatal(err)
	}
	m, ok := exchange.RewardMid(exchange.Fixed(bid), exchange.Fixed(ask))
	if !ok {
		env.t.Fatal("no mid")
	}
	return m
}

func getAuthed(t *testing.T, env *testEnv, ta *testAccount, path string, out any) {
	t.Helper()
	h, err := ta.l2.AuthHeaders(http.MethodGet, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, env.urls.CLOB+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatal(err)
	}
}

func approxEq(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }

package main

import (
	"context"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// TestLoopEarnsRewardsAgainstSim: the daemon's loop, built from the
// default configuration, quotes over loopback HTTP against the simulated
// exchange in markets that pay 100 a day within 3 cents to at least 20
// shares, while the simulator's background makers (200 shares a level)
// compete for the same pools. The simulator scores every resting order of
// every account and pays pro rata: the bot earns a share above zero, the
// makers earn too, and the loop's own estimate is above zero as well.
func TestLoopEarnsRewardsAgainstSim(t *testing.T) {
	t.Parallel() // it waits on its clock
	const seed = 5
	start := time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)
	cat, err := catalog.Generate(seed, 4, start)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cat.Markets {
		m := &cat.Markets[i]
		m.Rewards = catalog.Rewards{MaxSpread: decimal.NewFromInt(3), MinSize: decimal.Max(decimal.NewFromInt(20), m.MinOrderSize), DailyRate: decimal.NewFromInt(100)}
	}
	ex, err := sim.New(sim.Config{Seed: seed, Catalog: cat, Start: start, Manual: true, Step: 100 * time.Millisecond, NoRateLimits: true,
		Rand: rand.NewChaCha8([32]byte{seed}), Flow: sim.FlowConfig{TakerRate: 0.2, TakerSize: 20}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ex.Handler()) // 127.0.0.1:0
	t.Cleanup(func() {
		srv.Close()
		_ = ex.Close()
	})
	ac, err := ex.CreateAccount(sim.AccountOptions{Label: "bot", Fund: decimal.NewFromInt(100_000)})
	if err != nil {
		t.Fatal(err)
	}
	key, err := signer.ParseKey(ac.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	sgn, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: ac.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := signer.NewL2(signer.Credentials{APIKey: ac.APIKey, Secret: ac.Secret, Passphrase: ac.Passphrase}, key.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := exchange.NewClient(exchange.Endpoints{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"},
		exchange.WithAuthenticator(l2))
	if err != nil {
		t.Fatal(err)
	}
	var markets []strategy.Market
	for _, m := range ex.Catalog().Markets {
		if !m.Closed && m.Active && len(markets) < 2 {
			markets = append(markets, strategy.Market{ConditionID: m.ConditionID, Slug: m.Slug, TokenIDs: m.TokenIDs, Tick: m.TickSize,
				MinSize: m.MinOrderSize, NegRisk: m.NegRisk, EndDate: m.EndDate,
				Rewards: strategy.RewardTerms{MaxSpread: m.Rewards.MaxSpread, MinSize: m.Rewards.MinSize, DailyRate: m.Rewards.DailyRate}})
		}
	}
	if len(markets) < 2 {
		t.Fatalf("%d open markets", len(markets))
	}

	cfg, err := scoreboardConfig("") // the defaults, as mmbot run would have them
	if err != nil {
		t.Fatal(err)
	}
	params, est, err := assemble.StrategyParams(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		t.Fatal(err)
	}
	l, err := loop.New(assemble.LoopConfig(cfg, markets, params, est, kill), client, assemble.OrderSigner{Signer: sgn}, replay.NewMemJournal(), simLoopClock{ex}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stop := ex.Now().Add(3 * time.Minute)
	if err := l.Run(ctx, func(error) {
		if !ex.Now().Before(stop) {
			cancel()
		}
	}); err != nil {
		t.Fatal(err)
	}
	st := l.Status()
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	var bot, all decimal.Decimal
	for _, m := range markets {
		paid := ex.RewardsPaid(m.ConditionID)
		all = all.Add(paid)
		for _, e := range ex.RewardEarnings(ac.Wallet).Markets {
			if e.ConditionID == m.ConditionID {
				bot = bot.Add(e.Earned)
				t.Logf("market %s: the bot earned %s of %s paid (%.2f%%) over %d samples", short(m.ConditionID), e.Earned, paid, 100*e.Share, e.Samples)
			}
		}
	}
	makers := decimal.Zero // the other accounts' earnings in the bot's markets: the simulator's makers
	for _, w := range ex.RewardWallets() {
		if w == strings.ToLower(ac.Wallet) {
			continue
		}
		for _, e := range ex.RewardEarnings(w).Markets {
			for _, m := range markets {
				if e.ConditionID == m.ConditionID {
					makers = makers.Add(e.Earned)
				}
			}
		}
	}
	earned, daily, share := st.RewardTotals()
	t.Logf("the simulator paid %s in the bot's markets: the bot %s (%.2f%%), its makers %s; the loop estimates %s earned, %.2f a day, a mean share of %.2f%%",
		all, bot, 100*bot.InexactFloat64()/all.InexactFloat64(), makers, earned, daily, 100*share)
	if !bot.IsPositive() {
		t.Fatal("the bot earned no reward")
	}
	if !makers.IsPositive() {
		t.Fatal("the simulator's makers earned nothing: they did not compete")
	}
	if !earned.IsPositive() || !(share > 0) {
		t.Fatalf("the loop's estimate: earned %s, share %v", earned, share)
	}
	for _, m := range st.Markets {
		if !m.Rewards.Pays || !m.Rewards.Decision.Decided {
			t.Errorf("market %s: rewards %+v", short(m.ConditionID), m.Rewards)
		}
	}
}

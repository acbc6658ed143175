package sim

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// startStateful starts a manual-clock exchange with the flow on and a state
// file; it is closed (and the state saved) at the end of the test unless
// the test closes it first.
func startStateful(t *testing.T, path string, seed uint64) *testEnv {
	t.Helper()
	ex, err := New(Config{Seed: seed, Markets: 4, Manual: true, NoRateLimits: true,
		Rand: rand.NewChaCha8([32]byte{byte(seed)}), StateFile: path, StateEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	urls, err := ex.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	return &testEnv{t: t, ex: ex, urls: urls}
}

// comparable returns st as JSON without its save time.
func comparableState(t *testing.T, ex *Exchange) string {
	t.Helper()
	st, err := ex.State()
	if err != nil {
		t.Fatal(err)
	}
	st.Saved = time.Time{}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A simulator stopped and started again with its state file is the same
// exchange: the same accounts with the same keys and API credentials (the
// old credentials still authenticate), balances, open orders, trades and
// positions, and its flow goes on exactly as the one that stopped would
// have.
func TestStateFileKeepsTheExchangeAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim-state.json")
	env := startStateful(t, path, 11)
	if env.ex.Restored() {
		t.Fatal("a fresh exchange says it was restored")
	}
	maker := env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), Shares: decimal.NewFromInt(100)})
	taker := env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), SignatureType: 3})
	if err := env.ex.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	s := env.openMarket(false)
	bid, _, _ := env.ex.eng.BestBidAsk(s.m.TokenIDs[0])
	below := exchange.Fixed(bid - 5*s.tick).Decimal().String()
	res := maker.place(t,
		maker.order(t, s, 0, exchange.Buy, below, "20", exchange.GTC),   // rests
		maker.order(t, s, 1, exchange.Sell, "0.99", "30", exchange.GTC)) // rests high
	for _, r := range res {
		if !r.Success {
			t.Fatalf("placement refused: %+v", r)
		}
	}
	taker.place(t, taker.order(t, s, 0, exchange.Buy, "0.99", "15", exchange.FAK)) // takes from the flow's ladder: a position
	if err := env.ex.Advance(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	before := comparableState(t, env.ex)
	creds := env.ex.Credentials()
	balances := map[string]Balance{}
	for _, w := range env.ex.Accounts() {
		balances[w], _ = env.ex.Balance(w)
	}
	trades, err := taker.client.Trades(context.Background(), exchange.TradesParams{User: taker.creds.Wallet})
	if err != nil || len(trades) == 0 {
		t.Fatalf("taker's trades: %d, %v", len(trades), err)
	}
	if err := env.ex.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, %v; want mode 0600", fi, err)
	}

	// Started again from the file (with another seed: the file wins).
	env2 := startStateful(t, path, 99)
	if !env2.ex.Restored() {
		t.Fatal("not restored from the state file")
	}
	if after := comparableState(t, env2.ex); after != before {
		t.Errorf("restored state differs from the saved one")
	}
	if got := env2.ex.Credentials(); !reflect.DeepEqual(got, creds) {
		t.Errorf("credentials after restart:\n got %+v\nwant %+v", got, creds)
	}
	for w, b := range balances {
		if got, ok := env2.ex.Balance(w); !ok || !reflect.DeepEqual(got, b) {
			t.Errorf("balance of %s after restart: %+v, want %+v", w, got, b)
		}
	}
	// The old credentials, on clients pointed at the new address.
	maker2 := env2.addAccountFromCreds(maker.creds)
	taker2 := env2.addAccountFromCreds(taker.creds)
	for _, r := range res {
		o, err := maker2.client.Order(context.Background(), r.OrderID)
		if err != nil || o.Status != exchange.StatusLive {
			t.Errorf("open order %s after restart: %+v, %v", r.OrderID, o, err)
		}
	}
	trades2, err := taker2.client.Trades(context.Background(), exchange.TradesParams{User: taker.creds.Wallet})
	if err != nil || !reflect.DeepEqual(trades2, trades) {
		t.Errorf("taker's trades after restart: %v\n got %+v\nwant %+v", err, trades2, trades)
	}
	if _, err := maker2.client.CancelOrder(context.Background(), res[0].OrderID); err != nil {
		t.Errorf("cancel with the old credentials: %v", err)
	}
	if r := maker2.place(t, maker2.order(t, s, 0, exchange.Buy, below, "10", exchange.GTC)); !r[0].Success {
		t.Errorf("placement with the old key: %+v", r[0])
	}
	if err := env2.ex.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

// The flow goes on from a restored state exactly as it would have gone on
// in the exchange that saved it: fair values, ladders, takers, resolutions.
func TestStateFileFlowContinues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim-state.json")
	env := startStateful(t, path, 7)
	if err := env.ex.Advance(5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := env.ex.SaveState(); err != nil {
		t.Fatal(err)
	}
	env2 := startStateful(t, path, 7)
	// The liquidity rewards earned so far come back too (the flow's
	// makers earn in the markets that pay).
	wallets := env.ex.RewardWallets()
	if len(wallets) == 0 {
		t.Fatal("no account earned rewards in 5 minutes")
	}
	if got := env2.ex.RewardWallets(); !reflect.DeepEqual(got, wallets) {
		t.Fatalf("restored reward earners %v, want %v", got, wallets)
	}
	for _, w := range wallets {
		if a, b := env.ex.RewardEarnings(w), env2.ex.RewardEarnings(w); !a.Total.IsPositive() || !reflect.DeepEqual(a, b) {
			t.Fatalf("rewards of %s: restored %+v, saved %+v", w, b, a)
		}
	}
	for _, ex := range []*Exchange{env.ex, env2.ex} {
		if err := ex.Advance(5 * time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := comparableState(t, env.ex), comparableState(t, env2.ex); a != b {
		t.Error("the restored exchange's flow went another way than the original's")
	}
}

// A state file of another version is refused with a message naming it.
func TestStateFileVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim-state.json")
	if err := os.WriteFile(path, []byte(`{"version":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{Manual: true, StateFile: path})
	if err == nil || err.Error() != "sim: state file "+path+": version 99, this simulator reads version 1" {
		t.Errorf("error %v", err)
	}
}

// addAccountFromCreds makes a client for existing credentials.
func (env *testEnv) addAccountFromCreds(c AccountCreds) *testAccount {
	env.t.Helper()
	return env.withCreds(c)
}

// A changed tick and a placement still held by its market's delay survive
// a restart: the restored exchange reports the same ticks, reads the held
// order LIVE, and releases it to the book when the delay has passed, as
// the exchange that saved it does.
func TestStateFileKeepsTicksAndHeldPlacements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim-state.json")
	env := startStateful(t, path, 5)
	a := env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), Shares: decimal.NewFromInt(100)})
	s := env.openMarket(false)
	var other *mstate
	for _, m := range env.ex.markets {
		if m != s && !m.closed {
			other = m
			break
		}
	}
	env.ex.mu.Lock()
	s.m.SecondsDelay = 3
	env.ex.mu.Unlock()
	if err := env.ex.ChangeTick(other.m.ConditionID, decimal.RequireFromString("0.001"), other.m.TokenIDs[0]); err != nil {
		t.Fatal(err)
	}
	res := a.place(t, a.order(t, s, 0, exchange.Sell, "0.99", "10", exchange.GTC))
	if !res[0].Success || res[0].Status != exchange.PlaceDelayed {
		t.Fatalf("placement: %+v, want delayed", res[0])
	}
	before := comparableState(t, env.ex)
	if err := env.ex.Close(); err != nil {
		t.Fatal(err)
	}
	env2 := startStateful(t, path, 5)
	if after := comparableState(t, env2.ex); after != before {
		t.Fatal("restored state differs from the saved one")
	}
	a2 := env2.addAccountFromCreds(a.creds)
	if o, err := a2.client.Order(context.Background(), res[0].OrderID); err != nil || o.Status != exchange.StatusLive {
		t.Errorf("held order after restart: %+v, %v", o, err)
	}
	if got := env2.ex.byCond[other.id].reportedTick(0).String(); got != "0.001" {
		t.Errorf("tick after restart %s, want 0.001", got)
	}
	for _, ex := range []*Exchange{env.ex, env2.ex} {
		if err := ex.Advance(4 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := comparableState(t, env.ex), comparableState(t, env2.ex); a != b {
		t.Error("the held placement went another way after the restart")
	}
	if len(env2.ex.delayed) != 0 {
		t.Errorf("%d placements still held after the delay", len(env2.ex.delayed))
	}
	if err := env2.ex.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

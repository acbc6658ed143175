package sim

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/shopspring/decimal"
)

// testEnv is a running simulated exchange with one or more funded accounts.
type testEnv struct {
	t    *testing.T
	ex   *Exchange
	urls URLs
	accs []*testAccount
}

// testAccount is an account with its signer and client.
type testAccount struct {
	creds  AccountCreds
	signer *signer.Signer
	client *exchange.Client
	l2     *signer.L2
}

type setupOpt func(*Config)

func withFlow(on bool) setupOpt { return func(c *Config) { c.Flow.Disabled = !on } }

// setup starts a manual-clock exchange with 3 markets, no flow and no rate
// limits unless options say otherwise, and n funded EOA accounts.
func setup(t *testing.T, n int, opts ...setupOpt) *testEnv {
	t.Helper()
	cfg := Config{
		Seed: 11, Markets: 6, Manual: true, NoRateLimits: true,
		Rand: rand.NewChaCha8([32]byte{1, 2, 3}),
		Flow: FlowConfig{Disabled: true},
	}
	for _, o := range opts {
		o(&cfg)
	}
	ex, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls, err := ex.Start(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := ex.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := ex.CheckInvariants(); err != nil {
			t.Errorf("invariants: %v", err)
		}
	})
	env := &testEnv{t: t, ex: ex, urls: urls}
	for i := 0; i < n; i++ {
		env.addAccount(AccountOptions{Fund: decimal.NewFromInt(10_000), Shares: decimal.NewFromInt(100)})
	}
	return env
}

func (env *testEnv) addAccount(opts AccountOptions) *testAccount {
	t := env.t
	t.Helper()
	creds, err := env.ex.CreateAccount(opts)
	if err != nil {
		t.Fatal(err)
	}
	return env.withCreds(creds)
}

// withCreds makes a signer and a client for an account's credentials.
func (env *testEnv) withCreds(creds AccountCreds) *testAccount {
	t := env.t
	t.Helper()
	var err error
	ta := &testAccount{creds: creds}
	if !creds.PrivateKey.IsZero() {
		key, err := signer.ParseKey(creds.PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		wallet := ""
		if creds.SignatureType != signer.SigEOA {
			wallet = creds.Wallet
		}
		ta.signer, err = signer.New(signer.DefaultConfig(), signer.Account{Key: key, SignatureType: creds.SignatureType, Wallet: wallet, Owner: creds.APIKey})
		if err != nil {
			t.Fatal(err)
		}
	}
	ta.l2, err = signer.NewL2(signer.Credentials{APIKey: creds.APIKey, Secret: creds.Secret, Passphrase: creds.Passphrase}, creds.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	ta.client = env.client(exchange.WithAuthenticator(ta.l2))
	env.accs = append(env.accs, ta)
	return ta
}

func (env *testEnv) client(opts ...exchange.Option) *exchange.Client {
	env.t.Helper()
	opts = append([]exchange.Option{exchange.WithRetry(exchange.RetryPolicy{MaxAttempts: 1})}, opts...)
	c, err := exchange.NewClient(exchange.Endpoints{Data: env.urls.Data, Catalog: env.urls.Catalog, CLOB: env.urls.CLOB}, opts...)
	if err != nil {
		env.t.Fatal(err)
	}
	return c
}

// openMarket returns the first open market's state.
func (env *testEnv) openMarket(negRisk bool) *mstate {
	env.t.Helper()
	for _, s := range env.ex.markets {
		if !s.closed && s.m.NegRisk == negRisk {
			return s
		}
	}
	env.t.Fatalf("no open market with neg_risk %v", negRisk)
	return nil
}

// order signs one order.
func (ta *testAccount) order(t *testing.T, s *mstate, outcome int, side exchange.Side, price, size string, ot exchange.OrderType) exchange.PlacementItem {
	t.Helper()
	so, err := ta.signer.Sign(signer.OrderRequest{
		TokenID: s.m.TokenIDs[outcome], ConditionID: s.m.ConditionID, Side: side,
		Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size),
		TickSize: s.m.TickSize, MinSize: s.m.MinOrderSize, NegRisk: s.m.NegRisk, OrderType: ot,
	})
	if err != nil {
		t.Fatal(err)
	}
	return so.Item
}

func (ta *testAccount) place(t *testing.T, items ...exchange.PlacementItem) []exchange.PlacementResult {
	t.Helper()
	res, err := ta.client.PlaceOrders(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

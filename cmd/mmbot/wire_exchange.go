package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/internal/secret"
	"github.com/mmbot/mmbot/signer"
)

// clientLimits maps [exchange.limits] onto the client's caps; caps the
// config does not name keep the spec's numbers.
func clientLimits(l *configs.Limits) exchange.Limits {
	c := func(r configs.RateLimit) exchange.Cap {
		return exchange.Cap{Requests: r.Requests, Window: r.Window.Std()}
	}
	out := exchange.DefaultLimits()
	out.Fill = l.Fill
	out.CatalogGeneral, out.CatalogEvents, out.CatalogMarkets = c(l.CatalogGeneral), c(l.CatalogEvents), c(l.CatalogMarkets)
	out.CatalogEventsMarkets, out.CatalogTags = c(l.CatalogEventsMarkets), c(l.CatalogTags)
	out.CLOBGeneral, out.CLOBBooks = c(l.CLOBGeneral), c(l.CLOBBooks)
	out.PostOrderBurst, out.PostOrderSustained = c(l.PostOrderBurst), c(l.PostOrderSustained)
	out.DeleteOrderBurst, out.DeleteOrderSustained = c(l.DeleteOrderBurst), c(l.DeleteOrderSustained)
	out.DataGeneral, out.DataTrades = c(l.DataGeneral), c(l.DataTrades)
	return out
}

// newClient builds the exchange client for urls with the config's limits,
// retries and timeout, and any extra options. auth may be nil (public
// reads only).
func newClient(cfg *configs.Config, urls exchange.Endpoints, auth exchange.Authenticator, obs exchange.Observer, extra ...exchange.Option) (*exchange.Client, error) {
	r := &cfg.Exchange.Retry
	opts := []exchange.Option{
		exchange.WithHTTPClient(&http.Client{Timeout: cfg.Exchange.RequestTimeout.Std()}),
		exchange.WithLimits(clientLimits(&cfg.Exchange.Limits)),
		exchange.WithRetry(exchange.RetryPolicy{MaxAttempts: r.MaxAttempts, BaseDelay: r.BaseDelay.Std(), MaxDelay: r.MaxDelay.Std()}),
		exchange.WithMaxBatch(cfg.Exchange.MaxBatch),
		exchange.WithObserver(obs),
		exchange.WithUserAgent("mmbot/" + version),
	}
	if auth != nil {
		opts = append(opts, exchange.WithAuthenticator(auth))
	}
	return exchange.NewClient(urls, append(opts, extra...)...)
}

func signerConfig(cfg *configs.Config) signer.Config {
	e := &cfg.Exchange
	return signer.Config{ChainID: e.ChainID, Exchange: e.ExchangeAddress, NegRiskExchange: e.NegRiskExchangeAddress,
		DomainName: e.DomainName, DomainVersion: e.DomainVersion}
}

// account is who the daemon trades as.
type account struct {
	key     *signer.Key
	creds   signer.Credentials
	sigType int
	wallet  string
}

// loadAccount reads the key and API credentials from the configured
// sources: a credentials file (as written by `mmbot sim --creds-out`) or the
// individual key sources and secret references. The key is never a flag or
// a config value.
func loadAccount(cfg *configs.Config, getenv func(string) string, warn func(string)) (*account, error) {
	a := &cfg.Account
	if a.CredentialsFile != "" {
		return accountFromCredsFile(a.CredentialsFile, cfg, getenv, warn)
	}
	key, err := signer.LoadKey(signer.KeySource{File: a.PrivateKeyFile, Keystore: a.KeystoreFile, PasswordFile: a.KeystorePasswordFile,
		PasswordEnv: a.KeystorePasswordEnv, Credential: a.CredentialName, Env: a.PrivateKeyEnv}, getenv, warn)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	sec, err := a.APISecret().Read(getenv)
	if err != nil {
		return nil, err
	}
	pass, err := a.Passphrase().Read(getenv)
	if err != nil {
		return nil, err
	}
	creds, err := signer.ParseCredentials(a.APIKey.Reveal(), sec, pass)
	if err != nil {
		return nil, fmt.Errorf("API credentials: %w", err)
	}
	return &account{key: key, creds: creds, sigType: a.SignatureType, wallet: a.Funder}, nil
}

func accountFromCredsFile(path string, cfg *configs.Config, getenv func(string) string, warn func(string)) (*account, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		warn(fmt.Sprintf("credentials file %s is readable by group or others (mode %v); chmod 600 it", path, fi.Mode().Perm()))
	}
	f, err := sim.ReadCredentialsFile(path)
	if err != nil {
		return nil, fmt.Errorf("account.credentials_file: %w", err)
	}
	if len(f.Accounts) == 0 {
		return nil, fmt.Errorf("account.credentials_file %s holds no account", path)
	}
	ca := f.Accounts[0]
	var key *signer.Key
	if ca.PrivateKey != "" {
		key, err = signer.ParseKey(secret.New(ca.PrivateKey))
	} else {
		a := &cfg.Account
		key, err = signer.LoadKey(signer.KeySource{File: a.PrivateKeyFile, Keystore: a.KeystoreFile, PasswordFile: a.KeystorePasswordFile,
			PasswordEnv: a.KeystorePasswordEnv, Credential: a.CredentialName, Env: a.PrivateKeyEnv}, getenv, warn)
	}
	if err != nil {
		return nil, fmt.Errorf("private key of %s: %w", ca.Label, err)
	}
	creds, err := signer.ParseCredentials(ca.APIKey, secret.New(ca.Secret), secret.New(ca.Passphrase))
	if err != nil {
		return nil, fmt.Errorf("credentials of %s: %w", ca.Label, err)
	}
	return &account{key: key, creds: creds, sigType: ca.SignatureType, wallet: ca.Wallet}, nil
}

// newSigner builds the order signer and the L2 authenticator of acct.
func newSigner(cfg *configs.Config, acct *account) (*signer.Signer, *signer.L2, error) {
	wallet := acct.wallet
	if acct.sigType == signer.SigEOA {
		wallet = ""
	}
	s, err := signer.New(signerConfig(cfg), signer.Account{Key: acct.key, SignatureType: acct.sigType, Wallet: wallet,
		Owner: acct.creds.APIKey, Builder: cfg.Account.BuilderCode, Metadata: cfg.Account.Metadata})
	if err != nil {
		return nil, nil, fmt.Errorf("signer: %w", err)
	}
	l2, err := signer.NewL2(acct.creds, acct.key.Address(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("L2 authentication: %w", err)
	}
	return s, l2, nil
}

// embeddedSim starts the simulated exchange in-process on loopback and
// creates a funded account on it. Its keys come from a generator seeded by
// sim.seed, so the same demo config trades as the same account every run
// (and the journal of the previous run reconciles against it).
func embeddedSim(cfg *configs.Config, start func(*sim.Exchange) (sim.URLs, error)) (*sim.Exchange, sim.URLs, *account, error) {
	seed := uint64(cfg.Sim.Seed)
	ex, err := sim.New(sim.Config{Seed: seed, Markets: max(cfg.Sim.Markets, 1), Domain: signerConfig(cfg),
		Rand: rand.NewChaCha8(seedBytes(seed)), AuthWindow: cfg.Exchange.AuthWindow.Std()})
	if err != nil {
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange: %w", err)
	}
	urls, err := start(ex)
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange: %w", err)
	}
	ac, err := ex.CreateAccount(sim.AccountOptions{Label: "demo", Fund: dec("100000")})
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange account: %w", err)
	}
	key, err := signer.ParseKey(ac.PrivateKey)
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, err
	}
	return ex, urls, &account{key: key, creds: signer.Credentials{APIKey: ac.APIKey, Secret: ac.Secret, Passphrase: ac.Passphrase},
		sigType: ac.SignatureType, wallet: ac.Wallet}, nil
}

func seedBytes(seed uint64) [32]byte {
	var b [32]byte
	for i := range 4 {
		s := seed + uint64(i)*0x9e3779b97f4a7c15
		for j := range 8 {
			b[i*8+j] = byte(s >> (8 * j))
		}
	}
	return b
}

// endpoints returns the exchange's base addresses: the configured URLs, or
// those of the simulated exchange started in-process when
// exchange.embedded_sim is set (then simAcct is its funded account and
// stop closes it; otherwise stop does nothing and simAcct is nil).
func endpoints(cfg *configs.Config) (urls exchange.Endpoints, simAcct *account, stop func(), err error) {
	if !cfg.Exchange.EmbeddedSim {
		return exchange.Endpoints{Data: cfg.Exchange.DataURL, Catalog: cfg.Exchange.CatalogURL, CLOB: cfg.Exchange.CLOBURL}, nil, func() {}, nil
	}
	simCtx, simStop := context.WithCancel(context.Background())
	ex, su, a, err := embeddedSim(cfg, func(x *sim.Exchange) (sim.URLs, error) { return x.Start(simCtx) })
	if err != nil {
		simStop()
		return exchange.Endpoints{}, nil, nil, err
	}
	stop = func() {
		_ = ex.Close()
		simStop()
	}
	return exchange.Endpoints{Data: su.Data, Catalog: su.Catalog, CLOB: su.CLOB}, a, stop, nil
}

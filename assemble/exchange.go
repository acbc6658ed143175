package assemble

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/internal/secret"
	"github.com/mmbot/mmbot/signer"
)

// ClientLimits maps [exchange.limits] onto the client's caps; caps the
// config does not name keep the spec's numbers.
func ClientLimits(l *configs.Limits) exchange.Limits {
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

// NewClient builds the exchange client for urls with the config's limits,
// retries and timeout, and any extra options; its User-Agent is
// "mmbot/" + version. auth may be nil (public reads only).
func NewClient(cfg *configs.Config, version string, urls exchange.Endpoints, auth exchange.Authenticator, obs exchange.Observer, extra ...exchange.Option) (*exchange.Client, error) {
	r := &cfg.Exchange.Retry
	opts := []exchange.Option{
		exchange.WithHTTPClient(&http.Client{Timeout: cfg.Exchange.RequestTimeout.Std()}),
		exchange.WithLimits(ClientLimits(&cfg.Exchange.Limits)),
		exchange.WithRetry(exchange.RetryPolicy{MaxAttempts: r.MaxAttempts, BaseDelay: r.BaseDelay.Std(), MaxDelay: r.MaxDelay.Std()}),
		exchange.WithMaxBatch(cfg.Exchange.MaxBatch),
		exchange.WithMaxRetryAfter(cfg.Exchange.MaxRetryAfter.Std()),
		exchange.WithObserver(obs),
		exchange.WithUserAgent("mmbot/" + version),
	}
	if auth != nil {
		opts = append(opts, exchange.WithAuthenticator(auth))
	}
	return exchange.NewClient(urls, append(opts, extra...)...)
}

func SignerConfig(cfg *configs.Config) signer.Config {
	e := &cfg.Exchange
	return signer.Config{ChainID: e.ChainID, Exchange: e.ExchangeAddress, NegRiskExchange: e.NegRiskExchangeAddress,
		DomainName: e.DomainName, DomainVersion: e.DomainVersion}
}

// Account is who the daemon trades as: a key, its API credentials and
// how it signs (NewSigner builds the signer from it).
type Account struct {
	key     *signer.Key
	creds   signer.Credentials
	sigType int
	wallet  string
}

// SignatureType is the account's signature type (signer.SigEOA, ...).
func (a *Account) SignatureType() int { return a.sigType }

// LoadAccount reads the key and API credentials from the configured
// sources: a credentials file (as written by `mmbot sim --creds-out`) or the
// individual key sources and secret references. The key is never a flag or
// a config value. It reads every source even when one fails, and joins the
// errors of all that failed; no error contains a secret.
func LoadAccount(cfg *configs.Config, getenv func(string) string, warn func(string)) (*Account, error) {
	a := &cfg.Account
	if a.CredentialsFile != "" {
		return accountFromCredsFile(a.CredentialsFile, cfg, getenv, warn)
	}
	var errs []error
	key, err := signer.LoadKey(keySource(a), getenv, warn)
	if err != nil {
		errs = append(errs, fmt.Errorf("private key: %w", err))
	}
	sec, secErr := a.APISecret().Read(getenv)
	pass, passErr := a.Passphrase().Read(getenv)
	errs = append(errs, secErr, passErr)
	var creds signer.Credentials
	if secErr == nil && passErr == nil {
		if creds, err = signer.ParseCredentials(a.APIKey.Reveal(), sec, pass); err != nil {
			errs = append(errs, fmt.Errorf("API credentials: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Account{key: key, creds: creds, sigType: a.SignatureType, wallet: a.Funder}, nil
}

// keySource is where the account's private key is read from.
func keySource(a *configs.Account) signer.KeySource {
	return signer.KeySource{File: a.PrivateKeyFile, Keystore: a.KeystoreFile, PasswordFile: a.KeystorePasswordFile,
		PasswordEnv: a.KeystorePasswordEnv, Credential: a.CredentialName, Env: a.PrivateKeyEnv}
}

func accountFromCredsFile(path string, cfg *configs.Config, getenv func(string) string, warn func(string)) (*Account, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		warn(fmt.Sprintf("credentials file %s is readable by group or others (mode %v); chmod 600 it", path, fi.Mode().Perm()))
	}
	f, err := sim.ReadCredentialsFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the file's path and the cause say it all
			err = pe
		}
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
		key, err = signer.LoadKey(keySource(&cfg.Account), getenv, warn)
	}
	var errs []error
	if err != nil {
		errs = append(errs, fmt.Errorf("private key of %s: %w", ca.Label, err))
	}
	creds, err := signer.ParseCredentials(ca.APIKey, secret.New(ca.Secret), secret.New(ca.Passphrase))
	if err != nil {
		errs = append(errs, fmt.Errorf("credentials of %s: %w", ca.Label, err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Account{key: key, creds: creds, sigType: ca.SignatureType, wallet: ca.Wallet}, nil
}

// NewSigner builds the order signer and the L2 authenticator of acct.
func NewSigner(cfg *configs.Config, acct *Account) (*signer.Signer, *signer.L2, error) {
	wallet := acct.wallet
	if acct.sigType == signer.SigEOA {
		wallet = ""
	}
	s, err := signer.New(SignerConfig(cfg), signer.Account{Key: acct.key, SignatureType: acct.sigType, Wallet: wallet,
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
func embeddedSim(cfg *configs.Config, start func(*sim.Exchange) (sim.URLs, error)) (*sim.Exchange, sim.URLs, *Account, error) {
	seed := uint64(cfg.Sim.Seed)
	ex, err := sim.New(sim.Config{Seed: seed, Markets: max(cfg.Sim.Markets, 1), Domain: SignerConfig(cfg),
		Rand: rand.NewChaCha8(seedBytes(seed)), AuthWindow: cfg.Exchange.AuthWindow.Std()})
	if err != nil {
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange: %w", err)
	}
	urls, err := start(ex)
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange: %w", err)
	}
	// The account also holds 1000 shares of both outcomes of every market:
	// the exchange is new on every run but the journal (and the positions
	// it books) is not, and the quoter sells the positions it books.
	ac, err := ex.CreateAccount(sim.AccountOptions{Label: "demo", Fund: dec("100000"), Shares: dec("1000")})
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, fmt.Errorf("embedded simulated exchange account: %w", err)
	}
	key, err := signer.ParseKey(ac.PrivateKey)
	if err != nil {
		_ = ex.Close()
		return nil, sim.URLs{}, nil, err
	}
	return ex, urls, &Account{key: key, creds: signer.Credentials{APIKey: ac.APIKey, Secret: ac.Secret, Passphrase: ac.Passphrase},
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

// ConfiguredURLs returns the exchange's base addresses: the configured
// URLs and, for each one left empty, the one account.credentials_file holds
// (mmbot sim writes its URLs there). fromFile lists the keys that came from
// the file. An empty URL that the file does not fill is an error.
func ConfiguredURLs(cfg *configs.Config) (urls exchange.Endpoints, fromFile []string, err error) {
	x := &cfg.Exchange
	urls = exchange.Endpoints{Data: x.DataURL, Catalog: x.CatalogURL, CLOB: x.CLOBURL}
	path := cfg.Account.CredentialsFile
	if (urls.Data != "" && urls.Catalog != "" && urls.CLOB != "") || path == "" {
		return urls, nil, nil
	}
	f, err := sim.ReadCredentialsFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe
		}
		return exchange.Endpoints{}, nil, fmt.Errorf("exchange URLs: account.credentials_file: %w", err)
	}
	for _, u := range []struct {
		key       string
		dst       *string
		fromCreds string
	}{
		{"exchange.data_url", &urls.Data, f.DataURL},
		{"exchange.catalog_url", &urls.Catalog, f.Catalog},
		{"exchange.clob_url", &urls.CLOB, f.CLOB},
	} {
		if *u.dst != "" {
			continue
		}
		if u.fromCreds == "" {
			return exchange.Endpoints{}, nil, fmt.Errorf("%s is empty, and account.credentials_file %s holds none", u.key, path)
		}
		*u.dst = u.fromCreds
		fromFile = append(fromFile, u.key)
	}
	return urls, fromFile, nil
}

// SafeURL is s with the password of its user info, if any, replaced by
// xxxxx, for logs and messages.
func SafeURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// Endpoints returns the exchange's base addresses: the configured URLs
// (ConfiguredURLs), or those of the simulated exchange started in-process
// when exchange.embedded_sim is set (then simAcct is its funded account and
// stop closes it; otherwise stop does nothing and simAcct is nil).
func Endpoints(cfg *configs.Config) (urls exchange.Endpoints, simAcct *Account, stop func(), err error) {
	if !cfg.Exchange.EmbeddedSim {
		urls, _, err := ConfiguredURLs(cfg)
		if err != nil {
			return exchange.Endpoints{}, nil, nil, err
		}
		return urls, nil, func() {}, nil
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

package sim

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
	"github.com/mmbot/mmbot/internal/secret"
	"github.com/mmbot/mmbot/signer"
	"github.com/shopspring/decimal"
)

// account is one trading account.
type account struct {
	label      string
	apiKey     string
	secret     secret.Value // base64url
	passphrase secret.Value // 64 hex
	privateKey secret.Value // the generated signing key; zero for a registered address
	address    string       // the signing key's address (SVC_ADDRESS)
	wallet     string       // the maker address holding the funds
	sigType    int
	flow       bool // a background maker or taker of the simulated flow
	revoked    bool // RevokeCredentials: its API key is refused
}

// id is the engine's account id: the wallet, lower case.
func (a *account) id() string { return strings.ToLower(a.wallet) }

// accounts is the registry; guarded by Exchange.mu.
type accounts struct {
	rand     io.Reader
	byKey    map[string]*account
	byWallet map[string]*account // lower-case wallet
	list     []*account
}

func newAccounts(r io.Reader) *accounts {
	if r == nil {
		r = rand.Reader
	}
	return &accounts{rand: r, byKey: map[string]*account{}, byWallet: map[string]*account{}}
}

// AccountOptions describe an account to create.
type AccountOptions struct {
	// Label names the account in the data API (name, pseudonym) and the
	// credentials file; default "account-N".
	Label string
	// Address is an existing signing address to register instead of
	// generating a key; the caller holds its key.
	Address string
	// SignatureType is 0 (EOA, default), 1 (proxy), 2 (Safe) or 3
	// (deposit wallet).
	SignatureType int
	// Wallet is the funder (types 1, 2) or deposit wallet (type 3); when
	// empty for those types a fresh address is made.
	Wallet string
	// Fund is the collateral credited, in whole units (default 0).
	Fund decimal.Decimal
	// Shares, when positive, splits that much of the fund into both
	// outcome tokens of every open market, so the account can also sell.
	Shares decimal.Decimal
}

// AccountCreds is what a client needs to trade as an account. PrivateKey is
// set only for a generated key.
type AccountCreds struct {
	Label         string
	Address       string
	Wallet        string
	SignatureType int
	APIKey        string
	Secret        secret.Value
	Passphrase    secret.Value
	PrivateKey    secret.Value
}

// ErrBadAccount is wrapped by CreateAccount's argument errors.
var ErrBadAccount = errors.New("sim: invalid account options")

// CreateAccount registers an account with fresh API credentials, funds it
// and returns its credentials.
func (e *Exchange) CreateAccount(opts AccountOptions) (AccountCreds, error) {
	if opts.SignatureType < 0 || opts.SignatureType > 3 {
		return AccountCreds{}, fmt.Errorf("%w: signature type %d", ErrBadAccount, opts.SignatureType)
	}
	if opts.Fund.IsNegative() || opts.Shares.IsNegative() {
		return AccountCreds{}, fmt.Errorf("%w: negative fund", ErrBadAccount)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.accts.rand
	creds := AccountCreds{SignatureType: opts.SignatureType, Label: opts.Label}
	if creds.Label == "" {
		creds.Label = fmt.Sprintf("account-%d", len(e.accts.list)+1)
	}
	if opts.Address != "" {
		if !isHexAddress(opts.Address) {
			return AccountCreds{}, fmt.Errorf("%w: address %q", ErrBadAccount, opts.Address)
		}
		creds.Address = opts.Address
	} else {
		k, err := signer.GenerateKey(r)
		if err != nil {
			return AccountCreds{}, fmt.Errorf("sim: %w", err)
		}
		creds.Address, creds.PrivateKey = k.Address(), k.Hex()
	}
	creds.Wallet = creds.Address
	if opts.SignatureType != signer.SigEOA {
		creds.Wallet = opts.Wallet
		if creds.Wallet == "" {
			w, err := signer.GenerateKey(r) // only its address is used
			if err != nil {
				return AccountCreds{}, fmt.Errorf("sim: %w", err)
			}
			creds.Wallet = w.Address()
		} else if !isHexAddress(creds.Wallet) {
			return AccountCreds{}, fmt.Errorf("%w: wallet %q", ErrBadAccount, creds.Wallet)
		}
	}
	if _, dup := e.accts.byWallet[strings.ToLower(creds.Wallet)]; dup {
		return AccountCreds{}, fmt.Errorf("%w: wallet %s already has an account", ErrBadAccount, creds.Wallet)
	}
	c, err := signer.GenerateCredentials(r)
	if err != nil {
		return AccountCreds{}, fmt.Errorf("sim: %w", err)
	}
	creds.APIKey, creds.Secret, creds.Passphrase = c.APIKey, c.Secret, c.Passphrase
	a := &account{label: creds.Label, apiKey: c.APIKey, secret: c.Secret, passphrase: c.Passphrase,
		privateKey: creds.PrivateKey, address: creds.Address, wallet: creds.Wallet, sigType: opts.SignatureType}
	e.accts.add(a)
	if err := e.fundLocked(a, opts.Fund, opts.Shares); err != nil {
		return AccountCreds{}, err
	}
	return creds, nil
}

func (as *accounts) add(a *account) {
	as.byKey[a.apiKey] = a
	as.byWallet[a.id()] = a
	as.list = append(as.list, a)
}

// fundLocked deposits fund and splits shares into every open market.
func (e *Exchange) fundLocked(a *account, fund, shares decimal.Decimal) error {
	if amt, _ := exchange.FixedRound(fund, exchange.RoundTrunc); amt > 0 {
		if err := e.eng.Deposit(a.id(), int64(amt)); err != nil {
			return fmt.Errorf("sim: fund %s: %w", a.label, err)
		}
	}
	sh, _ := exchange.FixedRound(shares, exchange.RoundTrunc)
	if lots := int64(sh) / engine.SizeLot * engine.SizeLot; lots > 0 {
		for _, s := range e.markets {
			if s.closed {
				continue
			}
			if err := e.eng.Split(a.id(), s.id, lots); err != nil {
				return fmt.Errorf("sim: shares for %s in %s: %w", a.label, s.m.ConditionID, err)
			}
		}
	}
	return nil
}

// Fund credits more collateral to the account of a wallet.
func (e *Exchange) Fund(wallet string, amount decimal.Decimal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.accts.byWallet[strings.ToLower(wallet)]
	if !ok {
		return fmt.Errorf("%w: unknown wallet %s", ErrBadAccount, wallet)
	}
	return e.fundLocked(a, amount, decimal.Zero)
}

// Balance is an account's collateral and token balances in whole units.
type Balance struct {
	Collateral, Reserved decimal.Decimal
	Shares               map[string]decimal.Decimal // token id -> balance
	// Pending and PendingShares are received in matches not yet settled
	// (SettlementConfig): counted above, not usable yet.
	Pending       decimal.Decimal
	PendingShares map[string]decimal.Decimal
}

// Balance returns a wallet's balances.
func (e *Exchange) Balance(wallet string) (Balance, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settleDue(e.clock())
	b, ok := e.eng.Balance(strings.ToLower(wallet))
	if !ok {
		return Balance{}, false
	}
	out := Balance{
		Collateral:    exchange.Fixed(b.Collateral).Decimal(),
		Reserved:      exchange.Fixed(b.ReservedCollateral).Decimal(),
		Shares:        map[string]decimal.Decimal{},
		Pending:       exchange.Fixed(b.PendingCollateral).Decimal(),
		PendingShares: map[string]decimal.Decimal{},
	}
	for t, v := range b.Shares {
		out.Shares[t] = exchange.Fixed(v).Decimal()
	}
	for t, v := range b.PendingShares {
		out.PendingShares[t] = exchange.Fixed(v).Decimal()
	}
	return out, true
}

// Accounts lists the wallets of the non-flow accounts, in creation order.
func (e *Exchange) Accounts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, a := range e.accts.list {
		if !a.flow {
			out = append(out, a.wallet)
		}
	}
	return out
}

// walletOwner maps a wallet to the address of the key that owns it.
func (e *Exchange) walletOwner(wallet string) (string, bool) {
	a, ok := e.accts.byWallet[strings.ToLower(wallet)]
	if !ok || a.sigType == signer.SigEOA {
		return "", false
	}
	return a.address, true
}

func isHexAddress(s string) bool {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

// flowAccount registers an internal account of the flow.
func (e *Exchange) flowAccount(label, wallet string, fund int64) *account {
	a := &account{label: label, apiKey: "flow-" + label, address: wallet, wallet: wallet, flow: true}
	e.accts.add(a)
	_ = e.eng.Deposit(a.id(), fund) // fund > 0
	return a
}

// sortedAccounts returns the accounts sorted by wallet (for stable output).
func (as *accounts) sorted() []*account {
	out := append([]*account(nil), as.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].id() < out[j].id() })
	return out
}

// Credentials returns the credentials of the non-flow accounts, in creation
// order (PrivateKey set for generated keys): after a restart from a state
// file, what `mmbot sim` writes to its credentials file again.
func (e *Exchange) Credentials() []AccountCreds {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []AccountCreds
	for _, a := range e.accts.list {
		if !a.flow {
			out = append(out, AccountCreds{Label: a.label, Address: a.address, Wallet: a.wallet, SignatureType: a.sigType,
				APIKey: a.apiKey, Secret: a.secret, Passphrase: a.passphrase, PrivateKey: a.privateKey})
		}
	}
	return out
}

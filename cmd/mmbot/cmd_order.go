package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
)

const orderLong = `Signs one order with the account's key and prints the POST /orders item
(order sign), or reads an item on stdin and says who signed it (order
verify): EIP-712 over the exchange's domain, exact amounts, signature types
0 to 3 (docs/protocol.md).`

const orderExample = `  MMBOT_PRIVATE_KEY=0x... mmbot order sign --token-id 123 --side BUY \
      --price 0.56 --size 21.04 --tick 0.01 --salt 1 --timestamp 1700000000000 \
    | mmbot order verify`

// newOrderCmd is "mmbot order", the parent of "order sign" and "order
// verify".
func newOrderCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "order (sign | verify) [flags]",
		Short:   "sign or verify one order (order sign | order verify)",
		Long:    orderLong,
		Example: orderExample,
		Args:    unknownCommand,
		// order is a group: its arguments are subcommand names.
		SuggestionsMinimumDistance: suggestDistance,
		RunE: func(*cobra.Command, []string) error {
			return usagef("order needs a subcommand: sign or verify")
		},
	}
	cmd.AddCommand(newOrderSignCmd(e), newOrderVerifyCmd(e))
	return cmd
}

// domainFlags are the EIP-712 domain flags common to sign and verify.
type domainFlags struct {
	chainID                   int64
	exchangeAddr, negRiskAddr string
}

func (d *domainFlags) register(fs *pflag.FlagSet) {
	def := signer.DefaultConfig()
	fs.Int64Var(&d.chainID, "chain-id", def.ChainID, "chain id of the EIP-712 domain")
	fs.StringVar(&d.exchangeAddr, "exchange", def.Exchange, "verifying contract of ordinary markets")
	fs.StringVar(&d.negRiskAddr, "neg-risk-exchange", def.NegRiskExchange, "verifying contract of neg_risk markets")
}

func (d *domainFlags) config() signer.Config {
	c := signer.DefaultConfig()
	c.ChainID, c.Exchange, c.NegRiskExchange = d.chainID, d.exchangeAddr, d.negRiskAddr
	return c
}

// orderSignFlags are the parsed flags of mmbot order sign.
type orderSignFlags struct {
	tokenID, conditionID, side, price, size, tick, minSize, orderType string
	wallet, owner, builder, metadata                                  string
	keyFile, keystore, passwordFile                                   string
	negRisk                                                           bool
	sigType                                                           int
	salt                                                              uint64
	tsMillis                                                          int64
	dom                                                               domainFlags
}

const orderSignLong = `Prints the POST /orders item as JSON on stdout and the order hash on stderr.
The key comes from --key-file, --keystore, the systemd credential ` + signer.DefaultCredential + ` or
$` + signer.EnvPrivateKey + `; never from a flag. --salt and --timestamp make the output
reproducible.`

const orderSignExample = `  MMBOT_PRIVATE_KEY=0x... mmbot order sign --token-id 123 --side BUY --price 0.56 --size 21.04 --tick 0.01
  mmbot order sign --key-file key.hex --token-id 123 --side SELL --price 0.6 --size 10 --tick 0.01 \
      --signature-type 3 --wallet 0x... --salt 1 --timestamp 1700000000000`

func newOrderSignCmd(e *env) *cobra.Command {
	var f orderSignFlags
	cmd := &cobra.Command{
		Use:     "sign --token-id ID --side BUY|SELL --price P --size S --tick T [flags]",
		Short:   "build and sign one order, print the POST /orders item",
		Long:    orderSignLong,
		Example: orderSignExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&f.tokenID, "token-id", "", "token id (decimal), required")
	fs.StringVar(&f.side, "side", "", "BUY or SELL, required")
	fs.StringVar(&f.price, "price", "", "limit price on the tick grid, required")
	fs.StringVar(&f.size, "size", "", "size in shares, at most 2 decimals, required")
	fs.StringVar(&f.tick, "tick", "", "the market's tick size, required")
	fs.StringVar(&f.minSize, "min-size", "0", "the market's minimum order size")
	fs.BoolVar(&f.negRisk, "neg-risk", false, "the market is neg_risk (signs for the neg-risk exchange)")
	fs.StringVar(&f.conditionID, "condition-id", "", "condition id, sent but not signed")
	fs.StringVar(&f.orderType, "order-type", string(exchange.GTC), "GTC, GTD, FOK or FAK")
	fs.IntVar(&f.sigType, "signature-type", signer.SigEOA, "0 EOA, 1 proxy, 2 Safe, 3 deposit wallet")
	fs.StringVar(&f.wallet, "wallet", "", "funder (types 1, 2) or deposit wallet (type 3) address")
	fs.StringVar(&f.owner, "owner", "", "API key, sent as the item's owner")
	fs.StringVar(&f.builder, "builder", "", "bytes32 builder code (0x + 64 hex)")
	fs.StringVar(&f.metadata, "metadata", "", "bytes32 metadata (0x + 64 hex)")
	fs.Uint64Var(&f.salt, "salt", 0, "salt (below 2^53); default random")
	fs.Int64Var(&f.tsMillis, "timestamp", 0, "timestamp in Unix milliseconds; default now")
	fs.StringVar(&f.keyFile, "key-file", "", "file holding the private key as hex (default $"+signer.EnvPrivateKeyFile+")")
	fs.StringVar(&f.keystore, "keystore", "", "go-ethereum keystore file (default $"+signer.EnvKeystore+")")
	fs.StringVar(&f.passwordFile, "keystore-password-file", "", "file holding the keystore password (default $"+signer.EnvKeystorePassFile+", else $"+signer.EnvKeystorePassword+")")
	f.dom.register(fs)
	cmd.RunE = func(*cobra.Command, []string) error { return signOrder(e, fs, f) }
	return cmd
}

// signOrder runs "mmbot order sign" once its flags are parsed into fs and f.
func signOrder(e *env, fs *pflag.FlagSet, f orderSignFlags) error {
	for _, req := range []struct{ name, v string }{{"token-id", f.tokenID}, {"side", f.side}, {"price", f.price}, {"size", f.size}, {"tick", f.tick}} {
		if req.v == "" {
			return usagef("--%s is required", req.name)
		}
	}
	r := signer.OrderRequest{
		TokenID: f.tokenID, ConditionID: f.conditionID, NegRisk: f.negRisk,
		Side: exchange.Side(strings.ToUpper(f.side)), OrderType: exchange.OrderType(strings.ToUpper(f.orderType)),
	}
	if !r.Side.Valid() {
		return usagef("--side %q: want BUY or SELL", f.side)
	}
	if !r.OrderType.Valid() {
		return usagef("--order-type %q: want GTC, GTD, FOK or FAK", f.orderType)
	}
	for _, d := range []struct {
		name, v string
		dst     *decimal.Decimal
	}{{"price", f.price, &r.Price}, {"size", f.size, &r.Size}, {"tick", f.tick, &r.TickSize}, {"min-size", f.minSize, &r.MinSize}} {
		v, err := decimal.NewFromString(d.v)
		if err != nil {
			return usagef("--%s %q is not a decimal number", d.name, d.v)
		}
		*d.dst = v
	}

	src := signer.DefaultKeySource(e.getenv)
	if f.keyFile != "" {
		src.File, src.Keystore = f.keyFile, ""
	}
	if f.keystore != "" {
		src.Keystore, src.File = f.keystore, ""
	}
	if f.passwordFile != "" {
		src.PasswordFile = f.passwordFile
	}
	key, err := signer.LoadKey(src, e.getenv, func(w string) { fmt.Fprintf(e.stderr, "mmbot order sign: warning: %s\n", w) })
	if err != nil {
		return err
	}
	s, err := signer.New(f.dom.config(), signer.Account{
		Key: key, SignatureType: f.sigType, Wallet: f.wallet, Owner: f.owner, Builder: f.builder, Metadata: f.metadata,
	})
	if err != nil {
		return err
	}
	var so signer.SignedOrder
	if fs.Changed("salt") || fs.Changed("timestamp") {
		if !fs.Changed("salt") || !fs.Changed("timestamp") {
			return usagef("--salt and --timestamp go together")
		}
		so, err = s.SignWith(r, f.salt, f.tsMillis)
	} else {
		so, err = s.Sign(r)
	}
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(so.Item, "", "  ")
	if err != nil {
		return err
	}
	if _, err := e.stdout.Write(append(js, '\n')); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stderr, "order hash: %s\n", so.Hash)
	return err
}

// walletOwners is the repeatable --wallet-owner wallet=owner flag.
func walletOwners(pairs []string) (map[string]string, error) {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		w, o, ok := strings.Cut(p, "=")
		if !ok || w == "" || o == "" {
			return nil, usagef("--wallet-owner %q: want wallet=owner", p)
		}
		m[strings.ToLower(w)] = o
	}
	return m, nil
}

// readOrder decodes a placement item, or a bare signed order, from r.
func readOrder(r io.Reader) (exchange.SignedOrder, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return exchange.SignedOrder{}, fmt.Errorf("read stdin: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return exchange.SignedOrder{}, fmt.Errorf("stdin is not a JSON object: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if _, isItem := probe["order"]; isItem {
		var item exchange.PlacementItem
		if err := dec.Decode(&item); err != nil {
			return exchange.SignedOrder{}, fmt.Errorf("placement item: %w", err)
		}
		return item.Order, nil
	}
	var o exchange.SignedOrder
	if err := dec.Decode(&o); err != nil {
		return exchange.SignedOrder{}, fmt.Errorf("signed order: %w", err)
	}
	return o, nil
}

const orderVerifyLong = `Reads a POST /orders item (or a bare order) on stdin and prints the address that
signed it and the order hash; exits 1 with the reason when the signature is invalid.`

const orderVerifyExample = `  mmbot order verify < item.json
  mmbot order verify --neg-risk --wallet-owner 0xWALLET=0xOWNER < item.json`

// orderVerifyFlags are the parsed flags of mmbot order verify.
type orderVerifyFlags struct {
	negRisk bool
	owners  []string
	dom     domainFlags
}

func newOrderVerifyCmd(e *env) *cobra.Command {
	var f orderVerifyFlags
	cmd := &cobra.Command{
		Use:     "verify [--neg-risk] [--wallet-owner wallet=owner ...] < item.json",
		Short:   "read an item on stdin and say who signed it",
		Long:    orderVerifyLong,
		Example: orderVerifyExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.negRisk, "neg-risk", false, "the market is neg_risk (verify for the neg-risk exchange)")
	fs.StringArrayVar(&f.owners, "wallet-owner", nil, "wallet=owner: the owner address of a deposit wallet or funder (repeatable)")
	f.dom.register(fs)
	cmd.RunE = func(*cobra.Command, []string) error { return verifyOrder(e, f) }
	return cmd
}

// verifyOrder runs "mmbot order verify" once its flags are parsed into f.
func verifyOrder(e *env, f orderVerifyFlags) error {
	negRisk, owners, dom := f.negRisk, f.owners, f.dom
	om, err := walletOwners(owners)
	if err != nil {
		return err
	}
	v, err := signer.NewVerifier(dom.config())
	if err != nil {
		return err
	}
	o, err := readOrder(e.stdin)
	if err != nil {
		return err
	}
	who, err := v.VerifyOrder(o, negRisk, func(w string) (string, bool) {
		owner, ok := om[strings.ToLower(w)]
		return owner, ok
	})
	if err != nil {
		return fmt.Errorf("invalid: %w", err)
	}
	hash, err := v.OrderHash(o, negRisk)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "valid: signed by %s (signature type %d, maker %s)\norder hash: %s\n", who, o.SignatureType, o.Maker, hash)
	return err
}

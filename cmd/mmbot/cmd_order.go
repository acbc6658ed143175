package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/shopspring/decimal"
	"github.com/spf13/pflag"
)

// cmdOrder dispatches "mmbot order sign" and "mmbot order verify".
func cmdOrder(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("order needs a subcommand: sign or verify")
	}
	switch args[0] {
	case "sign":
		return cmdOrderSign(e, args[1:])
	case "verify":
		return cmdOrderVerify(e, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(e.stderr, "usage: mmbot order sign [flags]    build and sign one order, print the POST /orders item")
		fmt.Fprintln(e.stderr, "       mmbot order verify [flags]  read an item on stdin and say who signed it")
		return nil
	default:
		return usagef("unknown order subcommand %q (want sign or verify)", args[0])
	}
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

// parseFlags parses args with fs; -h prints the flags and is not an error.
func parseFlags(e *env, fs *pflag.FlagSet, usage string, args []string) (help bool, err error) {
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return false, usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return false, usagef("unexpected arguments %q", fs.Args())
	}
	return false, nil
}

func cmdOrderSign(e *env, args []string) error {
	fs := pflag.NewFlagSet("order sign", pflag.ContinueOnError)
	var (
		tokenID, conditionID, side, price, size, tick, minSize, orderType string
		wallet, owner, builder, metadata                                  string
		keyFile, keystore, passwordFile                                   string
		negRisk                                                           bool
		sigType                                                           int
		salt                                                              uint64
		tsMillis                                                          int64
		dom                                                               domainFlags
	)
	fs.StringVar(&tokenID, "token-id", "", "token id (decimal), required")
	fs.StringVar(&side, "side", "", "BUY or SELL, required")
	fs.StringVar(&price, "price", "", "limit price on the tick grid, required")
	fs.StringVar(&size, "size", "", "size in shares, at most 2 decimals, required")
	fs.StringVar(&tick, "tick", "", "the market's tick size, required")
	fs.StringVar(&minSize, "min-size", "0", "the market's minimum order size")
	fs.BoolVar(&negRisk, "neg-risk", false, "the market is neg_risk (signs for the neg-risk exchange)")
	fs.StringVar(&conditionID, "condition-id", "", "condition id, sent but not signed")
	fs.StringVar(&orderType, "order-type", string(exchange.GTC), "GTC, GTD, FOK or FAK")
	fs.IntVar(&sigType, "signature-type", signer.SigEOA, "0 EOA, 1 proxy, 2 Safe, 3 deposit wallet")
	fs.StringVar(&wallet, "wallet", "", "funder (types 1, 2) or deposit wallet (type 3) address")
	fs.StringVar(&owner, "owner", "", "API key, sent as the item's owner")
	fs.StringVar(&builder, "builder", "", "bytes32 builder code (0x + 64 hex)")
	fs.StringVar(&metadata, "metadata", "", "bytes32 metadata (0x + 64 hex)")
	fs.Uint64Var(&salt, "salt", 0, "salt (below 2^53); default random")
	fs.Int64Var(&tsMillis, "timestamp", 0, "timestamp in Unix milliseconds; default now")
	fs.StringVar(&keyFile, "key-file", "", "file holding the private key as hex (default $"+signer.EnvPrivateKeyFile+")")
	fs.StringVar(&keystore, "keystore", "", "go-ethereum keystore file (default $"+signer.EnvKeystore+")")
	fs.StringVar(&passwordFile, "keystore-password-file", "", "file holding the keystore password (default $"+signer.EnvKeystorePassFile+", else $"+signer.EnvKeystorePassword+")")
	dom.register(fs)
	usage := "usage: mmbot order sign --token-id ID --side BUY|SELL --price P --size S --tick T [flags]\n\n" +
		"Prints the POST /orders item as JSON on stdout and the order hash on stderr. The key\n" +
		"comes from --key-file, --keystore, the systemd credential " + signer.DefaultCredential + " or $" + signer.EnvPrivateKey + ";\n" +
		"never from a flag. --salt and --timestamp make the output reproducible.\n"
	if help, err := parseFlags(e, fs, usage, args); help || err != nil {
		return err
	}
	for _, req := range []struct{ name, v string }{{"token-id", tokenID}, {"side", side}, {"price", price}, {"size", size}, {"tick", tick}} {
		if req.v == "" {
			return usagef("--%s is required", req.name)
		}
	}
	r := signer.OrderRequest{
		TokenID: tokenID, ConditionID: conditionID, NegRisk: negRisk,
		Side: exchange.Side(strings.ToUpper(side)), OrderType: exchange.OrderType(strings.ToUpper(orderType)),
	}
	if !r.Side.Valid() {
		return usagef("--side %q: want BUY or SELL", side)
	}
	if !r.OrderType.Valid() {
		return usagef("--order-type %q: want GTC, GTD, FOK or FAK", orderType)
	}
	for _, d := range []struct {
		name, v string
		dst     *decimal.Decimal
	}{{"price", price, &r.Price}, {"size", size, &r.Size}, {"tick", tick, &r.TickSize}, {"min-size", minSize, &r.MinSize}} {
		v, err := decimal.NewFromString(d.v)
		if err != nil {
			return usagef("--%s %q is not a decimal number", d.name, d.v)
		}
		*d.dst = v
	}

	src := signer.DefaultKeySource(e.getenv)
	if keyFile != "" {
		src.File, src.Keystore = keyFile, ""
	}
	if keystore != "" {
		src.Keystore, src.File = keystore, ""
	}
	if passwordFile != "" {
		src.PasswordFile = passwordFile
	}
	key, err := signer.LoadKey(src, e.getenv, func(w string) { fmt.Fprintf(e.stderr, "mmbot order sign: warning: %s\n", w) })
	if err != nil {
		return err
	}
	s, err := signer.New(dom.config(), signer.Account{
		Key: key, SignatureType: sigType, Wallet: wallet, Owner: owner, Builder: builder, Metadata: metadata,
	})
	if err != nil {
		return err
	}
	var so signer.SignedOrder
	if fs.Changed("salt") || fs.Changed("timestamp") {
		if !fs.Changed("salt") || !fs.Changed("timestamp") {
			return usagef("--salt and --timestamp go together")
		}
		so, err = s.SignWith(r, salt, tsMillis)
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

func cmdOrderVerify(e *env, args []string) error {
	fs := pflag.NewFlagSet("order verify", pflag.ContinueOnError)
	var (
		negRisk bool
		owners  []string
		dom     domainFlags
	)
	fs.BoolVar(&negRisk, "neg-risk", false, "the market is neg_risk (verify for the neg-risk exchange)")
	fs.StringArrayVar(&owners, "wallet-owner", nil, "wallet=owner: the owner address of a deposit wallet or funder (repeatable)")
	dom.register(fs)
	usage := "usage: mmbot order verify [--neg-risk] [--wallet-owner wallet=owner ...] < item.json\n\n" +
		"Reads a POST /orders item (or a bare order) on stdin and prints the address that\n" +
		"signed it and the order hash; exits 1 with the reason when the signature is invalid.\n"
	if help, err := parseFlags(e, fs, usage, args); help || err != nil {
		return err
	}
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

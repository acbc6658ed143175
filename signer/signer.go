package signer

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// MaxSalt bounds the salt: salts are drawn below 2^53 so that clients that
// read JSON numbers as doubles keep them exact.
const MaxSalt = 1<<53 - 1

// Account is who signs and for which wallet.
type Account struct {
	Key           *Key
	SignatureType int    // SigEOA, SigProxy, SigSafe or SigDepositWallet
	Wallet        string // the funder (types 1, 2) or the deposit wallet (type 3); empty for type 0
	Owner         string // the API key, sent as the placement item's owner
	Builder       string // bytes32 builder code, 0x + 64 hex; empty means zero
	Metadata      string // bytes32 metadata, 0x + 64 hex; empty means zero
}

// OrderRequest is one order to build. Price must be on the TickSize grid,
// Size have at most 2 decimals and be at least MinSize (zero: no minimum).
type OrderRequest struct {
	TokenID     string // decimal token id
	ConditionID string // travels in the JSON, not signed
	Side        exchange.Side
	Price       decimal.Decimal
	Size        decimal.Decimal
	TickSize    decimal.Decimal
	MinSize     decimal.Decimal
	NegRisk     bool
	OrderType   exchange.OrderType // empty means GTC
}

// SignedOrder is a built and signed order: the POST /orders item and the
// order hash (0x-prefixed lowercase hex of the order's EIP-712 digest).
type SignedOrder struct {
	Item exchange.PlacementItem
	Hash string
}

// Option configures a Signer.
type Option func(*Signer)

// WithClock sets the clock that stamps orders (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Signer) { s.now = now } }

// WithRand sets the source of salts (default crypto/rand.Reader).
func WithRand(r io.Reader) Option { return func(s *Signer) { s.rand = r } }

// Signer builds and signs orders for one account. It is safe for concurrent
// use.
type Signer struct {
	d        *domains
	key      *Key
	sigType  uint8
	maker    common.Address
	signer   common.Address
	owner    string
	builder  common.Hash
	metadata common.Hash
	now      func() time.Time

	// Wire forms of the constant fields, computed once.
	makerHex, signerHex, builderHex, metadataHex string

	randMu sync.Mutex
	rand   io.Reader
}

// New checks cfg and acct and returns a Signer.
func New(cfg Config, acct Account, opts ...Option) (*Signer, error) {
	d, err := newDomains(cfg)
	if err != nil {
		return nil, err
	}
	if acct.Key == nil || acct.Key.priv == nil {
		return nil, fmt.Errorf("%w: no key", ErrInvalidAccount)
	}
	s := &Signer{d: d, key: acct.Key, owner: acct.Owner, now: time.Now, rand: rand.Reader}
	if s.builder, err = parseBytes32OrZero(acct.Builder); err != nil {
		return nil, fmt.Errorf("%w: builder: %w", ErrInvalidAccount, err)
	}
	if s.metadata, err = parseBytes32OrZero(acct.Metadata); err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", ErrInvalidAccount, err)
	}
	keyAddr := acct.Key.addr
	switch acct.SignatureType {
	case SigEOA:
		if acct.Wallet != "" {
			w, err := parseAddress(acct.Wallet)
			if err != nil || w != keyAddr {
				return nil, fmt.Errorf("%w: signature type 0 signs for the key's own address %s; leave the wallet empty", ErrInvalidAccount, keyAddr.Hex())
			}
		}
		s.maker, s.signer = keyAddr, keyAddr
	case SigProxy, SigSafe:
		w, err := parseAddress(acct.Wallet)
		if err != nil {
			return nil, fmt.Errorf("%w: signature type %d needs the funder wallet: %w", ErrInvalidAccount, acct.SignatureType, err)
		}
		s.maker, s.signer = w, keyAddr
	case SigDepositWallet:
		w, err := parseAddress(acct.Wallet)
		if err != nil {
			return nil, fmt.Errorf("%w: signature type 3 needs the deposit wallet: %w", ErrInvalidAccount, err)
		}
		s.maker, s.signer = w, w
	default:
		return nil, fmt.Errorf("%w: signature type %d is not 0, 1, 2 or 3", ErrInvalidAccount, acct.SignatureType)
	}
	s.sigType = uint8(acct.SignatureType)
	s.makerHex, s.signerHex = s.maker.Hex(), s.signer.Hex()
	s.builderHex, s.metadataHex = hex0x(s.builder[:]), hex0x(s.metadata[:])
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Address is the checksummed address of the signing key.
func (s *Signer) Address() string { return s.key.addr.Hex() }

// Maker is the checksummed maker address of the signer's orders.
func (s *Signer) Maker() string { return s.makerHex }

// Sign builds and signs req with a fresh salt and the clock's time.
func (s *Signer) Sign(req OrderRequest) (SignedOrder, error) {
	salt, err := s.salt()
	if err != nil {
		return SignedOrder{}, err
	}
	return s.SignWith(req, salt, s.now().UnixMilli())
}

func (s *Signer) salt() (uint64, error) {
	var b [8]byte
	s.randMu.Lock()
	_, err := io.ReadFull(s.rand, b[:])
	s.randMu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("salt: %w", err)
	}
	return binary.BigEndian.Uint64(b[:]) & MaxSalt, nil
}

// SignWith builds and signs req with the given salt (at most MaxSalt) and
// timestamp (Unix milliseconds). The same inputs give the same bytes.
func (s *Signer) SignWith(req OrderRequest, salt uint64, tsMillis int64) (SignedOrder, error) {
	if salt > MaxSalt {
		return SignedOrder{}, fmt.Errorf("%w: salt %d above 2^53-1", ErrInvalidOrder, salt)
	}
	if tsMillis < 0 {
		return SignedOrder{}, fmt.Errorf("%w: negative timestamp %d", ErrInvalidOrder, tsMillis)
	}
	ot := req.OrderType
	if ot == "" {
		ot = exchange.GTC
	}
	if !ot.Valid() {
		return SignedOrder{}, fmt.Errorf("%w: order type %q", ErrInvalidOrder, string(ot))
	}
	if err := ValidateSize(req.Size, req.MinSize); err != nil {
		return SignedOrder{}, err
	}
	makerAmt, takerAmt, err := Amounts(req.Side, req.Price, req.Size, req.TickSize)
	if err != nil {
		return SignedOrder{}, err
	}
	o := order{
		maker:    s.maker,
		signer:   s.signer,
		sigType:  s.sigType,
		metadata: s.metadata,
		builder:  s.builder,
	}
	if o.tokenID, err = parseDecimal(req.TokenID); err != nil {
		return SignedOrder{}, fieldErr("token id", err)
	}
	o.salt.SetUint64(salt)
	o.makerAmount.SetUint64(makerAmt)
	o.takerAmount.SetUint64(takerAmt)
	o.timestamp.SetUint64(uint64(tsMillis))
	if req.Side == exchange.Sell {
		o.side = sideSell
	}

	sh := s.d.structHash(&o)
	sep := s.d.separator[negRiskIndex(req.NegRisk)]
	digest := typedDataHash(sep, sh)
	var sig []byte
	if s.sigType == SigDepositWallet {
		inner, err := s.key.sign(s.d.wrapperDigest(sh, sep, s.maker))
		if err != nil {
			return SignedOrder{}, err
		}
		sig = wrapSignature(inner, sep, sh)
	} else if sig, err = s.key.sign(digest); err != nil {
		return SignedOrder{}, err
	}

	return SignedOrder{
		Item: exchange.PlacementItem{
			Order: exchange.SignedOrder{
				Salt:          strconv.FormatUint(salt, 10),
				Maker:         s.makerHex,
				Signer:        s.signerHex,
				TokenID:       req.TokenID,
				ConditionID:   req.ConditionID,
				MakerAmount:   strconv.FormatUint(makerAmt, 10),
				TakerAmount:   strconv.FormatUint(takerAmt, 10),
				Side:          req.Side,
				SignatureType: int(s.sigType),
				Timestamp:     strconv.FormatInt(tsMillis, 10),
				Metadata:      s.metadataHex,
				Builder:       s.builderHex,
				Signature:     hex0x(sig),
			},
			OrderType: ot,
			Owner:     s.owner,
		},
		Hash: hex0x(digest[:]),
	}, nil
}

package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Signer is the backtest's loop.OrderSigner: it builds placement items
// with the exchange's amounts (integer base units of 6 decimals, DESIGN.md
// §4) but signs nothing. The salt is a counter and the order hash is
// OrderHash of the item, so a run is deterministic and costs no secp256k1
// signature. The Replay recomputes the hash to name the order.
type Signer struct {
	// Maker is written as maker and signer (default "0xbacktest").
	Maker string
	n     uint64
}

var _ loop.OrderSigner = (*Signer)(nil)

// SignOrder implements loop.OrderSigner.
func (s *Signer) SignOrder(m *strategy.Market, o *strategy.Order, t exchange.OrderType) (exchange.PlacementItem, string, error) {
	if m == nil || o == nil {
		return exchange.PlacementItem{}, "", errors.New("backtest signer: no market or order")
	}
	if !o.Side.Valid() || !o.Price.IsPositive() || !o.Size.IsPositive() {
		return exchange.PlacementItem{}, "", fmt.Errorf("backtest signer: invalid order %s %s @ %s", o.Side, o.Size, o.Price)
	}
	shares, err1 := exchange.FixedFromDecimal(o.Size)
	price, err2 := exchange.FixedFromDecimal(o.Price)
	collateral, err3 := shares.Mul(price, exchange.RoundExact)
	if err := errors.Join(err1, err2, err3); err != nil {
		return exchange.PlacementItem{}, "", fmt.Errorf("backtest signer: %s @ %s is not exact in base units", o.Size, o.Price)
	}
	maker, taker := int64(collateral), int64(shares)
	if o.Side == exchange.Sell {
		maker, taker = int64(shares), int64(collateral)
	}
	s.n++
	who := s.Maker
	if who == "" {
		who = "0xbacktest"
	}
	so := exchange.SignedOrder{Salt: strconv.FormatUint(s.n, 10), Maker: who, Signer: who, TokenID: o.TokenID,
		ConditionID: m.ConditionID, MakerAmount: strconv.FormatInt(maker, 10), TakerAmount: strconv.FormatInt(taker, 10), Side: o.Side,
		Timestamp: "0", Metadata: zero32, Builder: zero32}
	h := OrderHash(&so)
	so.Signature = "0x"
	return exchange.PlacementItem{Order: so, OrderType: t, Owner: who}, h, nil
}

const zero32 = "0x0000000000000000000000000000000000000000000000000000000000000000"

// OrderHash is the backtest's order id: the SHA-256 of the signed fields of
// so (not an EIP-712 hash; nothing is verified in a backtest).
func OrderHash(so *exchange.SignedOrder) string {
	h := sha256.New()
	for _, f := range [...]string{so.Salt, so.Maker, so.Signer, so.TokenID, so.MakerAmount, so.TakerAmount,
		string(so.Side), strconv.Itoa(so.SignatureType), so.Timestamp, so.Metadata, so.Builder} {
		_, _ = h.Write([]byte(f))
		_, _ = h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	return "0x" + hex.EncodeToString(h.Sum(sum[:0]))
}

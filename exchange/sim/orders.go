package sim

import (
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// zeroBytes32 is the default metadata and builder value.
const zeroBytes32 = "0x0000000000000000000000000000000000000000000000000000000000000000"

// orderRecord is an order placed over HTTP, kept for GET /data/order/{id}.
type orderRecord struct {
	o         *engine.Order
	s         *mstate
	owner     string // API key
	maker     string // display wallet
	orderType exchange.OrderType
	builder   string // bytes32 builder code, "" when zero
	trades    []string
	held      bool // waiting for its market's delay (delay.go); o is not the engine's yet
}

// builderRec is one builder trade: a taker order's matches in one placement
// (type TAKER) or one fill of a resting order (type MAKER) whose order
// carries a builder code.
type builderRec struct {
	id      string
	kind    string // TAKER or MAKER
	rec     *orderRecord
	s       *mstate
	outcome int
	side    engine.Side
	size    int64
	price   int64 // average price of the order's own token, base units
	fills   []engine.Fill
	time    time.Time
	tx      string
	unit    *settleUnit // the match's deferred settlement; nil: settled at once
}

// Builder trade settlement steps: MATCHED at the match, MINED after
// builderMined, CONFIRMED after builderConfirmed.
const (
	builderMined     = 2 * time.Second
	builderConfirmed = 10 * time.Second
)

func (b *builderRec) status(now time.Time) string {
	if b.unit != nil {
		return b.unit.status
	}
	switch age := now.Sub(b.time); {
	case age >= builderConfirmed:
		return exchange.TradeConfirmed
	case age >= builderMined:
		return exchange.TradeMined
	}
	return exchange.TradeMatched
}

// afterPlace records the fills of a placement (rec is nil for flow orders)
// and reports the book change; e.mu is held.
func (e *Exchange) afterPlace(s *mstate, res engine.Result, rec *orderRecord, now time.Time) {
	if res.Order == nil {
		return
	}
	unit := e.deferSettlement(res.Fills, now)
	for _, f := range res.Fills {
		e.data.record(e, s, f)
		if rec != nil {
			rec.trades = append(rec.trades, tradeID(f.Seq))
		}
		if mr := e.orders[f.Maker.Order.ID]; mr != nil {
			mr.trades = append(mr.trades, tradeID(f.Seq))
			if mr.builder != "" {
				e.data.builder = append(e.data.builder, builderRec{
					id: "builder-" + tradeID(f.Seq), kind: "MAKER", rec: mr, s: s, outcome: f.Maker.Outcome,
					side: f.Maker.Side, size: f.Size, price: f.Maker.Price, fills: []engine.Fill{f}, time: now,
					tx: txHash(e.cfg.Seed, f.Seq), unit: unit,
				})
			}
		}
		if e.cfg.OnTrade != nil {
			e.cfg.OnTrade(TradeEvent{
				Time: f.Time, Market: s.m.ConditionID, Token: s.m.TokenIDs[f.Taker.Outcome], Outcome: f.Taker.Outcome,
				Side: side(f.Taker.Side), Price: exchange.Fixed(f.Taker.Price).Decimal(), Size: exchange.Fixed(f.Size).Decimal(), Kind: f.Kind.String(),
				TakerWallet: e.display(f.Taker.Account), MakerWallet: e.display(f.Maker.Account), TradeID: tradeID(f.Seq),
				TakerOrder: f.Taker.Order.ID, MakerOrder: f.Maker.Order.ID,
			})
		}
	}
	if rec != nil && rec.builder != "" && len(res.Fills) > 0 {
		var size, amt int64
		for _, f := range res.Fills {
			size += f.Size
			amt += f.Taker.Amount
		}
		first := res.Fills[0]
		e.data.builder = append(e.data.builder, builderRec{
			id: "builder-" + tradeID(first.Seq), kind: "TAKER", rec: rec, s: s, outcome: first.Taker.Outcome,
			side: first.Taker.Side, size: size, price: amt * engine.Unit / size, fills: res.Fills, time: now,
			tx: txHash(e.cfg.Seed, first.Seq), unit: unit,
		})
	}
	e.touch(s.id)
}

// display returns the display form of an engine account id.
func (e *Exchange) display(id string) string {
	if a := e.accts.byWallet[id]; a != nil {
		return a.wallet
	}
	return id
}

func side(s engine.Side) exchange.Side {
	if s == engine.Buy {
		return exchange.Buy
	}
	return exchange.Sell
}

// orderStatus maps an engine status to the wire's.
func orderStatus(o *engine.Order) string {
	switch o.Status {
	case engine.Live:
		return exchange.StatusLive
	case engine.Matched:
		return exchange.StatusMatched
	}
	return exchange.StatusCanceled
}

// readOrder builds the GET /data/order/{id} body of a record.
func (r *orderRecord) read() exchange.Order {
	o := r.o
	trades := append([]string{}, r.trades...)
	return exchange.Order{
		AssociateTrades: trades,
		ID:              o.ID,
		Status:          orderStatus(o),
		Market:          r.s.m.ConditionID,
		OriginalSize:    exchange.Fixed(o.Size).Decimal(),
		Outcome:         r.s.m.Outcomes[o.Outcome],
		MakerAddress:    r.maker,
		Owner:           r.owner,
		Price:           exchange.Fixed(o.Price).Decimal(),
		Side:            side(o.Side),
		SizeMatched:     exchange.Fixed(o.Filled).Decimal(),
		AssetID:         o.Token,
		Type:            r.orderType,
		CreatedAt:       isoTime(o.Created),
		UpdatedAt:       isoTime(o.Updated),
	}
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func isZeroBytes32(s string) bool {
	return s == "" || strings.EqualFold(s, zeroBytes32)
}

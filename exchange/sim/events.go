package sim

import (
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// TradeEvent is one fill, as OnTrade reports it, seen from the taker.
type TradeEvent struct {
	Time        time.Time
	Market      string // condition id
	Token       string // the taker's token
	Outcome     int
	Side        exchange.Side // the taker's side
	Price       decimal.Decimal
	Size        decimal.Decimal
	Kind        string // transfer, mint or merge
	TakerWallet string
	MakerWallet string
	TradeID     string
	TakerOrder  string // order hash (or the flow's order id) of each side
	MakerOrder  string
}

// BookEvent reports that a market's book changed; Books holds the new books
// of its two tokens in the POST /books shape (levels best first).
type BookEvent struct {
	Time   time.Time
	Market string
	Books  [2]exchange.OrderBook
}

// touch reports a book change of a market; e.mu is held.
func (e *Exchange) touch(marketID string) {
	if e.cfg.OnBook == nil {
		return
	}
	s, ok := e.byCond[marketID]
	if !ok {
		return
	}
	now := e.clock()
	ev := BookEvent{Time: now, Market: s.m.ConditionID}
	for i, tok := range s.m.TokenIDs {
		b, err := e.bookLocked(tok, now)
		if err != nil {
			return
		}
		b.Normalize()
		ev.Books[i] = b
	}
	e.cfg.OnBook(ev)
}

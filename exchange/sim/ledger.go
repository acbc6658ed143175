package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// maxTrades is how many trade records the data API keeps at least (the
// oldest are dropped first, a quarter at a time).
const maxTrades = 200_000

// tradeRec is one participant's side of one fill (data API GET /trades).
type tradeRec struct {
	seq     uint64
	id      string // trade id, shared by both sides of the fill
	wallet  string // display wallet
	walletL string // lower case
	s       *mstate
	outcome int
	side    engine.Side
	size    int64
	price   int64
	amount  int64
	time    time.Time
	taker   bool
	tx      string
}

// position is one wallet's running position in one token.
type position struct {
	qty        int64 // shares held
	cost       int64 // cost basis of the shares held
	bought     int64 // shares bought since the position opened
	boughtCost int64
	realized   int64
	last       time.Time
}

// closedRec is a position that went back to zero or was resolved.
type closedRec struct {
	wallet     string
	s          *mstate
	outcome    int
	bought     int64
	boughtCost int64
	realized   int64
	curPrice   int64
	time       time.Time
	resolved   bool
}

// ledger holds the data API's records; guarded by Exchange.mu.
type ledger struct {
	trades    []tradeRec
	positions map[string]*position // wallet(lower) + "/" + token
	closed    map[string][]closedRec
	builder   []builderRec
}

func newLedger() *ledger {
	return &ledger{positions: map[string]*position{}, closed: map[string][]closedRec{}}
}

// txHash derives a transaction hash for a fill.
func txHash(seed, seq uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], seed)
	binary.BigEndian.PutUint64(b[8:], seq)
	h := sha256.Sum256(b[:])
	return "0x" + hex.EncodeToString(h[:])
}

// tradeID is the id of a fill.
func tradeID(seq uint64) string { return "trade-" + strconv.FormatUint(seq, 10) }

// record books a fill into trades and positions.
func (l *ledger) record(e *Exchange, s *mstate, f engine.Fill) {
	id := tradeID(f.Seq)
	tx := txHash(e.cfg.Seed, f.Seq)
	for i, p := range []engine.Party{f.Taker, f.Maker} {
		a := e.accts.byWallet[p.Account]
		wallet := p.Account
		if a != nil {
			wallet = a.wallet
		}
		l.trades = append(l.trades, tradeRec{
			seq: f.Seq, id: id, wallet: wallet, walletL: p.Account, s: s, outcome: p.Outcome, side: p.Side,
			size: f.Size, price: p.Price, amount: p.Amount, time: f.Time, taker: i == 0, tx: tx,
		})
		l.move(p.Account, s, p.Outcome, p.Side, f.Size, p.Amount, p.Price, f.Time)
	}
	if n := len(l.trades); n > maxTrades+maxTrades/4 { // trim in chunks: amortised O(1)
		l.trades = append(l.trades[:0], l.trades[n-maxTrades:]...)
	}
}

// move updates a position with average-cost accounting and closes it when
// it returns to zero.
func (l *ledger) move(wallet string, s *mstate, outcome int, side engine.Side, size, amount, price int64, at time.Time) {
	key := wallet + "/" + s.m.TokenIDs[outcome]
	p := l.positions[key]
	if p == nil {
		p = &position{}
		l.positions[key] = p
	}
	p.last = at
	if side == engine.Buy {
		p.qty += size
		p.cost += amount
		p.bought += size
		p.boughtCost += amount
		return
	}
	if p.qty <= 0 { // selling what was split outside the book: no cost basis
		p.qty -= size
		p.realized += amount
		return
	}
	basis := p.cost * min(size, p.qty) / p.qty
	p.cost -= basis
	p.qty -= size
	p.realized += amount - basis
	if p.qty == 0 {
		l.close(wallet, s, outcome, p, price, at, false)
		delete(l.positions, key)
	}
}

func (l *ledger) close(wallet string, s *mstate, outcome int, p *position, curPrice int64, at time.Time, resolved bool) {
	if p.bought == 0 && p.realized == 0 {
		return
	}
	l.closed[wallet] = append(l.closed[wallet], closedRec{
		wallet: wallet, s: s, outcome: outcome, bought: p.bought, boughtCost: p.boughtCost,
		realized: p.realized, curPrice: curPrice, time: at, resolved: resolved,
	})
}

// resolve closes every open position of a market at the resolution payout.
func (l *ledger) resolve(e *Exchange, s *mstate, winner int, at time.Time) {
	for outcome, tok := range s.m.TokenIDs {
		pay := int64(0)
		if outcome == winner {
			pay = engine.Unit
		}
		for _, a := range e.accts.sorted() {
			key := a.id() + "/" + tok
			p := l.positions[key]
			if p == nil {
				continue
			}
			value := p.qty / engine.SizeLot * pay / (engine.Unit / engine.SizeLot)
			p.realized += value - p.cost
			l.close(a.id(), s, outcome, p, pay, at, true)
			delete(l.positions, key)
		}
	}
}

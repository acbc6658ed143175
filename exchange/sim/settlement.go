package sim

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// SettlementConfig makes the exchange settle matches over time, as the live
// one does on chain: a match is MATCHED, then MINED after Delay (what each
// party received becomes usable: until then it counts in the balances but
// cannot back an order), then CONFIRMED after Confirm more. A match drawn
// to fail (Faults.SettleFailRate) goes RETRYING after Delay instead, then
// FAILED after Confirm more, when it is reverted: each party gets back what
// it gave and loses what it received. The orders keep their matched size.
//
// The zero value settles at once (balances usable at the match); builder
// trades then still show MATCHED, MINED and CONFIRMED by age (2 s and 10 s).
type SettlementConfig struct {
	Delay   time.Duration // MATCHED → MINED (or RETRYING); 0: settle at once
	Confirm time.Duration // MINED → CONFIRMED (or RETRYING → FAILED); default 4 × Delay
}

func (c *SettlementConfig) fill() error {
	if c.Delay < 0 || c.Confirm < 0 {
		return fmt.Errorf("sim: settlement delays %s and %s: want zero or positive", c.Delay, c.Confirm)
	}
	if c.Delay > 0 && c.Confirm == 0 {
		c.Confirm = 4 * c.Delay
	}
	return nil
}

// settleUnit is one placement's matches, settled (or failed) together: the
// fills of one taker order in one placement.
type settleUnit struct {
	fills  []engine.Fill
	at     time.Time
	fail   bool
	status string // exchange.TradeMatched … TradeFailed
}

// settlements holds the units not yet final, oldest first; guarded by
// Exchange.mu.
type settlements struct {
	open   []*settleUnit
	failed int // units reverted
}

// deferSettlement holds a placement's fills until they settle, when
// settlement is deferred and an account outside the flow is a party; it
// returns the unit (nil when the fills settled at once). e.mu is held.
func (e *Exchange) deferSettlement(fills []engine.Fill, now time.Time) *settleUnit {
	if e.cfg.Settlement.Delay <= 0 || len(fills) == 0 || !e.involvesAccount(fills) {
		return nil
	}
	u := &settleUnit{fills: fills, at: now, status: exchange.TradeMatched, fail: e.faults.drawSettleFail()}
	for _, f := range fills {
		e.eng.Hold(f)
	}
	e.settle.open = append(e.settle.open, u)
	return u
}

// involvesAccount reports whether a party of the fills is not the flow.
func (e *Exchange) involvesAccount(fills []engine.Fill) bool {
	for _, f := range fills {
		for _, id := range []string{f.Taker.Account, f.Maker.Account} {
			if a := e.accts.byWallet[id]; a == nil || !a.flow {
				return true
			}
		}
	}
	return false
}

// settleDue moves every unit whose time has come; e.mu is held.
func (e *Exchange) settleDue(now time.Time) {
	if len(e.settle.open) == 0 {
		return
	}
	c := e.cfg.Settlement
	keep := e.settle.open[:0]
	for _, u := range e.settle.open {
		if u.status == exchange.TradeMatched && !now.Before(u.at.Add(c.Delay)) {
			if u.fail {
				u.status = exchange.TradeRetrying
			} else {
				e.settleRelease(u)
			}
		}
		if !now.Before(u.at.Add(c.Delay + c.Confirm)) {
			switch u.status {
			case exchange.TradeMined:
				u.status = exchange.TradeConfirmed
			case exchange.TradeRetrying:
				e.revert(u)
			}
		}
		if u.status == exchange.TradeMatched || u.status == exchange.TradeMined || u.status == exchange.TradeRetrying {
			keep = append(keep, u)
		}
	}
	clear(e.settle.open[len(keep):])
	e.settle.open = keep
}

func (e *Exchange) settleRelease(u *settleUnit) {
	for _, f := range u.fills {
		e.eng.Release(f)
	}
	u.status = exchange.TradeMined
}

// revert takes a failed unit's fills back, newest first. A fill that can no
// longer be taken back (never, while held amounts stay held) settles instead.
func (e *Exchange) revert(u *settleUnit) {
	for i := len(u.fills) - 1; i >= 0; i-- {
		f := u.fills[i]
		if err := e.eng.Revert(f); err != nil {
			e.eng.Release(f)
			continue
		}
		e.touch(f.Market)
	}
	u.status = exchange.TradeFailed
	e.settle.failed++
}

// settleMarket settles at once every open unit of a market about to resolve
// (its balances are paid out). e.mu is held.
func (e *Exchange) settleMarket(marketID string) {
	for _, u := range e.settle.open {
		if u.status == exchange.TradeMatched && len(u.fills) > 0 && u.fills[0].Market == marketID {
			e.settleRelease(u)
		}
	}
}

// SettlementStats counts the deferred settlements: open (not yet final) and
// failed (reverted) ones.
func (e *Exchange) SettlementStats() (open, failed int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settleDue(e.clock())
	return len(e.settle.open), e.settle.failed
}

// drawSettleFail draws whether one settlement fails.
func (fs *faultState) drawSettleFail() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.f.SettleFailRate > 0 && fs.r.Float64() < fs.f.SettleFailRate
}

// notReady reports whether every request is answered 503 (Faults.NotReady).
func (fs *faultState) notReady() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.f.NotReady
}

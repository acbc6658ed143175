package replay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// This file moves the replay's time: events go to the fill model and the
// metrics at their recorded time, and to the strategy's view after the data
// latency.

// peek makes sure the next event is read ahead; false at the end of the
// recording or after an error.
func (r *Replay) peek() bool {
	if r.hasNext {
		return true
	}
	if r.eof || r.err != nil {
		return false
	}
	e, err := r.src.Next()
	switch {
	case err == nil:
		r.next, r.hasNext = e, true
		return true
	case errors.Is(err, io.EOF):
		r.eof = true
	default:
		r.err = fmt.Errorf("backtest: reading the recording: %w", err)
	}
	return false
}

// advanceTo replays every event at or before t, applies the Matchers'
// transitions due by t, and moves the clock to t.
func (r *Replay) advanceTo(t time.Time) {
	if t.Before(r.now) {
		t = r.now
	}
	for r.peek() {
		et := r.next.Time()
		if et.After(t) {
			break
		}
		e := r.next
		r.hasNext, r.next = false, recording.Event{}
		r.consume(e, et)
		if r.err != nil {
			return
		}
		r.last = et
		r.events++
		if r.cfg.OnProgress != nil && r.events%r.cfg.ProgressEvery == 0 {
			r.cfg.OnProgress(r.events)
		}
	}
	r.dueBy(t)
	r.sampleRewards(t)
	r.now = t
	r.reveal(t.Add(-r.dataMax))
}

// dueBy applies the Matcher transitions (activations, cancels) due at or
// before t.
func (r *Replay) dueBy(t time.Time) {
	if r.nextDue.IsZero() || r.nextDue.After(t) {
		return
	}
	r.nextDue = time.Time{}
	for _, tok := range r.list {
		if at, ok := tok.m.NextTransition(); ok && !at.After(t) {
			r.onFills(tok, tok.m.Advance(t))
		}
		if at, ok := tok.m.NextTransition(); ok {
			r.schedule(at)
		}
	}
}

// schedule notes a pending Matcher transition at t.
func (r *Replay) schedule(t time.Time) {
	if r.nextDue.IsZero() || t.Before(r.nextDue) {
		r.nextDue = t
	}
}

// consume feeds one event, at its time t, to the fill model and the
// metrics (fills first, then the book), and queues it for the strategy.
func (r *Replay) consume(e recording.Event, t time.Time) {
	if t.Before(r.now) {
		t = r.now // out of order: the Matchers treat it as now too
	}
	r.dueBy(t)
	r.sampleRewards(t)
	var tok *replayToken // the event's token, for the strategy's view
	switch e.Kind {
	case recording.KindBook:
		if tok = r.tokens[e.Book.TokenID]; tok == nil {
			return
		}
		// A decoded book's Fixed levels are read as they are (the Matcher
		// copies them); a book built by hand is converted.
		fb := e.Book.FixedLevels()
		if fb == nil {
			if err := r.scratch.SetFrom(e.Book); err != nil {
				r.err = fmt.Errorf("backtest: event %d: %w", r.events+1, err)
				return
			}
			fb = &r.scratch
		}
		r.onFills(tok, tok.m.OnBook(fb, t))
		tok.acc.OnBook(t, fb)
		if b := e.Book; b.TickSize != tok.tickDec || b.MinOrderSize != tok.minDec {
			// Decoded books share their decimals, so this converts only
			// when the terms change.
			tok.tickDec, tok.minDec = b.TickSize, b.MinOrderSize
			if f, ok := fixedIfSet(b.TickSize); ok {
				tok.takeTick(f)
			}
			if f, ok := fixedIfSet(b.MinOrderSize); ok {
				tok.minSize = f
			}
		}
	case recording.KindTrade:
		if tok = r.tokens[e.Trade.TokenID]; tok == nil {
			return
		}
		mt, err := fillmodel.MatchTradeFrom(e.Trade)
		if err != nil {
			r.err = fmt.Errorf("backtest: event %d: %w", r.events+1, err)
			return
		}
		r.onFills(tok, tok.m.OnTrade(mt, t))
		if tw := tok.mk.toks[1-tok.outcome]; tw != nil && mt.Price > 0 && mt.Price < exchange.FixedScale {
			// The print went through the other token's orders too, at the
			// complementary price (fillmodel.MatchTrade.Mirror).
			r.onFills(tw, tw.m.OnTrade(mt.Mirror(), t))
		}
	case recording.KindMeta:
		if !r.applyMeta(e.Meta, t) {
			return
		}
	default:
		return
	}
	if r.dataMax == 0 {
		r.show(e, tok)
		return
	}
	r.vis.push(e, tok)
}

// takeTick takes a tick size the token's book or meta gives. A market has
// one tick and a tick_size_change comes per token, so a recording may hold
// the change of one token while the other's books go on carrying the old
// tick: a token giving another tick than it gave before (the market's
// initial tick before its first) changes the tick of the whole market; a
// token repeating its own tick changes nothing.
func (tok *replayToken) takeTick(f exchange.Fixed) {
	prev := tok.said
	tok.said = f
	if f == prev {
		return
	}
	for _, t := range tok.mk.toks {
		t.tick = f
	}
}

// applyMeta applies a metadata change at the exchange: tick and minimum
// size, and resolution (the position is redeemed, our orders cancelled).
// It reports whether the event concerns a known market.
func (r *Replay) applyMeta(m *recording.Meta, t time.Time) bool {
	var toks []*replayToken
	if m.TokenID != "" {
		if tok := r.tokens[m.TokenID]; tok != nil {
			toks = append(toks, tok)
		}
	} else if mk := r.byCond[m.Market]; mk != nil {
		toks = mk.toks[:]
	}
	for _, tok := range toks {
		if f, ok := fixedIfSet(m.TickSize); ok {
			tok.takeTick(f)
		}
		if f, ok := fixedIfSet(m.MinOrderSize); ok {
			tok.minSize = f
		}
		if m.SecondsDelay > 0 {
			tok.mk.delay = time.Duration(m.SecondsDelay) * time.Second
		}
		if m.Resolved && !tok.resolved {
			tok.resolved = true
			tok.acc.OnResolve(t, m.Payout)
			for _, o := range append([]*vorder(nil), tok.live...) {
				if at, err := tok.m.Cancel(o.id, t); err == nil {
					r.schedule(at)
				}
				r.finish(o, statusCanceled)
			}
		}
	}
	return len(toks) > 0
}

// reveal makes visible to the strategy every queued event at or before
// cut (and never takes back what was shown).
func (r *Replay) reveal(cut time.Time) {
	if cut.After(r.cutoff) {
		r.cutoff = cut
	}
	for r.vis.n > 0 {
		it := r.vis.front()
		if it.at.After(r.cutoff) {
			break
		}
		if it.e.Kind == recording.KindBook {
			r.showBook(it.tok, &it.fx, it.dec, it.tick, it.min, true)
		} else {
			r.show(it.e, it.tok)
		}
		r.vis.pop()
	}
}

// readCutoff draws the data latency of one read and reveals what it can
// see: the exchange's state at now minus the draw (never older than what an
// earlier read saw).
func (r *Replay) readCutoff() time.Time {
	if r.dataMax == 0 {
		r.cutoff = r.now
		return r.now
	}
	r.reveal(r.now.Add(-r.cfg.Matcher.Latency.Data.Sample(r.drng)))
	return r.cutoff
}

// show applies an event to the strategy's view; tok is a book's or a
// trade's token (consume found it).
func (r *Replay) show(e recording.Event, tok *replayToken) {
	switch e.Kind {
	case recording.KindBook:
		b := e.Book
		var dec *recording.Book
		if b.FixedLevels() == nil {
			dec = b
		}
		r.showBook(tok, b.FixedLevels(), dec, b.TickSize, b.MinOrderSize, false)
	case recording.KindTrade:
		if tok != nil {
			tok.mk.push(newTapeTrade(tok, e.Trade))
			r.tapeVer++
		}
	case recording.KindMeta:
		m := e.Meta
		var toks []*replayToken
		if m.TokenID != "" {
			if tok := r.tokens[m.TokenID]; tok != nil {
				toks = append(toks, tok)
			}
		} else if mk := r.byCond[m.Market]; mk != nil {
			toks = mk.toks[:]
		}
		for _, tok := range toks {
			if m.TickSize.IsPositive() {
				tok.visTick = m.TickSize
			}
			if m.MinOrderSize.IsPositive() {
				tok.visMin = m.MinOrderSize
			}
			tok.visResolved = tok.visResolved || m.Resolved
		}
	}
}

// showBook applies a book of tok to the strategy's view: its Fixed levels fx,
// copied (or, when take is set, swapped with the token's previous ones),
// or, for a book without them, dec itself.
func (r *Replay) showBook(tok *replayToken, fx *recording.FixedBook, dec *recording.Book, tick, minSize decimal.Decimal, take bool) {
	if tok == nil {
		return
	}
	tok.hasVis, tok.visDec = true, dec
	tok.visVer++
	switch {
	case dec != nil:
	case take:
		tok.visFx, *fx = *fx, tok.visFx
	default:
		tok.visFx.CopyFrom(fx)
	}
	if tick.IsPositive() {
		tok.visTick = tick
	}
	if minSize.IsPositive() {
		tok.visMin = minSize
	}
}

// onFills books the Matcher's fills of tok: the order records and the
// metrics.
func (r *Replay) onFills(tok *replayToken, fills []fillmodel.Fill) {
	for i := range fills {
		f := &fills[i]
		tok.acc.OnFill(*f)
		o := r.orders[f.OrderID]
		if o == nil {
			continue
		}
		o.matched += f.Size
		if f.Remaining == 0 && o.status == statusLive {
			r.finish(o, statusMatched)
		}
	}
}

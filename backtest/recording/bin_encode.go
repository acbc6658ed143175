package recording

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// This file encodes events into the content of a version 2 block
// (docs/data-format.md, "Block content"). A block starts afresh: its
// strings, its times and each token's previous book are the block's own,
// so that every block decodes alone.

// Tag bits of an event.
const (
	tagKindMask  = 0x03
	tagExchange  = 0x04 // the exchange time follows
	tagReceived  = 0x08 // the receive time follows
	tagSameTerms = 0x10 // book: tick and minimum size as the token's previous book in the block
	tagTakerBuy  = 0x10 // trade: the taker bought
	tagTakerSell = 0x20 // trade: the taker sold
)

// Meta field flags.
const (
	metaTick = 1 << iota
	metaMinSize
	metaEndDate
	metaResolved
	metaRewardMaxSpread
	metaRewardMinSize
	metaRewardDailyRate
	metaSecondsDelay // a uvarint of seconds
	metaNegRisk      // no value
	metaQuestion     // a string reference
	metaSlug         // a string reference
	metaAll          = 1<<iota - 1
)

// maxScale is the largest power of ten a side's prices or sizes may be
// given in (the scale byte's nibbles).
const maxScale = 12

// scaleOf is 10^e for the scale nibbles, and scaleMax the largest value
// that may be multiplied by it.
var (
	scaleOf  [maxScale + 1]int64
	scaleMax [maxScale + 1]uint64
)

func init() {
	v := int64(1)
	for e := range scaleOf {
		scaleOf[e] = v
		scaleMax[e] = uint64(math.MaxInt64 / v)
		v *= 10
	}
}

// encToken is what the encoder remembers of a token's last book in the
// current block.
type encToken struct {
	bids, asks []Level
	tick, min  exchange.Fixed
	seen       bool
}

// blockEncoder builds one block's content: the string table and the
// events. Reset it between blocks.
type blockEncoder struct {
	refs     map[string]uint64 // string → reference (1-based)
	strs     []byte            // the table's entries (length, bytes)
	nstr     int
	toks     []encToken // by the token's string reference
	ev       []byte
	events   int
	first    int64 // time of the block's first event, Unix ns
	last     int64 // time of the last event, Unix ns (kept across blocks)
	exch     int64 // previous exchange time in the block, Unix ms
	recv     int64 // previous receive time in the block, Unix ns
	bidsTmp  []Level
	asksTmp  []Level
	scaleTmp []int64
}

func (b *blockEncoder) reset() {
	clear(b.refs)
	for i := range b.toks {
		t := &b.toks[i]
		t.bids, t.asks, t.seen = t.bids[:0], t.asks[:0], false
	}
	b.strs, b.nstr, b.ev, b.events, b.first, b.exch, b.recv = b.strs[:0], 0, b.ev[:0], 0, 0, 0, 0
}

// size is the block's content size so far, give or take the table's count.
func (b *blockEncoder) size() int { return len(b.strs) + len(b.ev) + binary.MaxVarintLen64 }

// content appends the block's content (string table, then events) to dst.
func (b *blockEncoder) content(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(b.nstr))
	dst = append(dst, b.strs...)
	return append(dst, b.ev...)
}

// ref returns s's reference in the block's table, adding it.
func (b *blockEncoder) ref(s string) uint64 {
	if s == "" {
		return 0
	}
	if r, ok := b.refs[s]; ok {
		return r
	}
	if b.refs == nil {
		b.refs = map[string]uint64{}
	}
	b.nstr++
	r := uint64(b.nstr)
	b.refs[s] = r
	b.strs = binary.AppendUvarint(b.strs, uint64(len(s)))
	b.strs = append(b.strs, s...)
	return r
}

// stampTimes returns the stamp's times as written (Unix ms and ns, 0 when
// absent), refusing what version 1 could not read back either.
func stampTimes(st Stamp) (ms, ns int64, err error) {
	if !st.Exchange.IsZero() {
		if ms = st.Exchange.UnixMilli(); ms < 0 {
			return 0, 0, invalid("exchange time %s before 1970", st.Exchange.Format(time.RFC3339))
		}
	}
	if !st.Received.IsZero() {
		if y := st.Received.Year(); y < 1970 || y > 2261 {
			return 0, 0, invalid("receive time %s outside 1970-2261", st.Received.Format(time.RFC3339))
		}
		ns = st.Received.UnixNano()
	}
	if ms == 0 && ns == 0 {
		return 0, 0, invalid("no timestamp after 1970")
	}
	return ms, ns, nil
}

// add encodes one validated event.
func (b *blockEncoder) add(e Event) error {
	var st Stamp
	var tok, mkt string
	switch e.Kind {
	case KindBook:
		st, tok, mkt = e.Book.Stamp, e.Book.TokenID, e.Book.Market
	case KindTrade:
		st, tok, mkt = e.Trade.Stamp, e.Trade.TokenID, e.Trade.Market
	case KindMeta:
		st, tok, mkt = e.Meta.Stamp, e.Meta.TokenID, e.Meta.Market
	default:
		return invalid("unknown kind %d", e.Kind)
	}
	ms, ns, err := stampTimes(st)
	if err != nil {
		return err
	}
	// Everything that can fail is checked before the first byte is written.
	var bids, asks []Level
	var tick, minSize exchange.Fixed
	if e.Kind == KindBook {
		if bids, asks, err = b.levels(e.Book); err != nil {
			return err
		}
		if tick, err = checkFixed("tick", e.Book.TickSize); err != nil {
			return err
		}
		if minSize, err = checkFixed("min_size", e.Book.MinOrderSize); err != nil {
			return err
		}
	}
	tag := byte(e.Kind)
	if ms != 0 {
		tag |= tagExchange
	}
	if ns != 0 {
		tag |= tagReceived
	}
	tr, mr := b.ref(tok), b.ref(mkt)
	var et *encToken
	if e.Kind == KindBook {
		for uint64(len(b.toks)) <= tr {
			b.toks = append(b.toks, encToken{})
		}
		et = &b.toks[tr]
		if et.seen && et.tick == tick && et.min == minSize {
			tag |= tagSameTerms
		}
	}
	if e.Kind == KindTrade {
		switch e.Trade.TakerSide {
		case exchange.Buy:
			tag |= tagTakerBuy
		case exchange.Sell:
			tag |= tagTakerSell
		}
	}
	mark := len(b.ev)
	p := append(b.ev, tag)
	p = binary.AppendUvarint(p, tr)
	p = binary.AppendUvarint(p, mr)
	if ms != 0 {
		p = binary.AppendVarint(p, ms-b.exch)
	}
	if ns != 0 {
		p = binary.AppendVarint(p, ns-b.recv)
	}
	switch e.Kind {
	case KindBook:
		if tag&tagSameTerms == 0 {
			p = binary.AppendUvarint(p, uint64(tick))
			p = binary.AppendUvarint(p, uint64(minSize))
		}
		p = b.appendSide(p, et.bids, bids, true)
		p = b.appendSide(p, et.asks, asks, false)
	case KindTrade:
		p, err = appendTrade(p, e.Trade)
	case KindMeta:
		p, err = appendMeta(p, e.Meta)
		if err == nil {
			p = b.appendMetaNames(p, e.Meta)
		}
	}
	if err != nil {
		b.ev = p[:mark]
		return err
	}
	b.ev = p
	if et != nil {
		et.bids, et.asks = append(et.bids[:0], bids...), append(et.asks[:0], asks...)
		et.tick, et.min, et.seen = tick, minSize, true
	}
	if ms != 0 {
		b.exch = ms
	}
	if ns != 0 {
		b.recv = ns
	}
	b.last = ns
	if ns == 0 {
		b.last = ms * int64(time.Millisecond)
	}
	if b.events == 0 {
		b.first = b.last
	}
	b.events++
	return nil
}

// levels returns the book's sides in Fixed units.
func (b *blockEncoder) levels(bk *Book) (bids, asks []Level, err error) {
	if bk.fx != nil {
		return bk.fx.Bids, bk.fx.Asks, nil
	}
	if b.bidsTmp, err = fixedLevels(b.bidsTmp[:0], bk.Bids, true); err != nil {
		return nil, nil, invalid("book %s bids: %v", bk.TokenID, err)
	}
	if b.asksTmp, err = fixedLevels(b.asksTmp[:0], bk.Asks, false); err != nil {
		return nil, nil, invalid("book %s asks: %v", bk.TokenID, err)
	}
	return b.bidsTmp, b.asksTmp, nil
}

// appendSide appends one side as an edit of the token's previous side in
// the block: keep the first levels, drop some, add new ones, keep the rest.
func (b *blockEncoder) appendSide(p []byte, prev, cur []Level, desc bool) []byte {
	keep := 0
	for keep < len(prev) && keep < len(cur) && prev[keep] == cur[keep] {
		keep++
	}
	tail := 0
	for tail < len(prev)-keep && tail < len(cur)-keep && prev[len(prev)-1-tail] == cur[len(cur)-1-tail] {
		tail++
	}
	add := cur[keep : len(cur)-tail]
	p = binary.AppendUvarint(p, uint64(keep))
	p = binary.AppendUvarint(p, uint64(len(prev)-keep-tail))
	p = binary.AppendUvarint(p, uint64(len(add)))
	if len(add) == 0 {
		return p
	}
	steps := b.scaleTmp[:0]
	anchor := exchange.Fixed(0)
	if keep > 0 {
		anchor = cur[keep-1].Price
	}
	for _, l := range add {
		switch {
		case anchor == 0:
			steps = append(steps, int64(l.Price))
		case desc:
			steps = append(steps, int64(anchor-l.Price))
		default:
			steps = append(steps, int64(l.Price-anchor))
		}
		anchor = l.Price
	}
	b.scaleTmp = steps
	pe := maxScale
	for _, s := range steps {
		pe = min(pe, trailingZeros(s))
	}
	se := maxScale
	for _, l := range add {
		se = min(se, trailingZeros(int64(l.Size)))
	}
	p = append(p, byte(pe<<4|se))
	for i, l := range add {
		p = binary.AppendUvarint(p, uint64(steps[i]/scaleOf[pe]))
		p = binary.AppendUvarint(p, uint64(int64(l.Size)/scaleOf[se]))
	}
	return p
}

// trailingZeros counts v's trailing decimal zeros, up to maxScale (v = 0
// has them all).
func trailingZeros(v int64) int {
	n := 0
	for n < maxScale && v%10 == 0 {
		if v == 0 {
			return maxScale
		}
		v /= 10
		n++
	}
	return n
}

func appendTrade(p []byte, t *Trade) ([]byte, error) {
	price, err := checkFixed("trade price", t.Price)
	if err != nil {
		return p, err
	}
	size, err := checkFixed("trade size", t.Size)
	if err != nil {
		return p, err
	}
	p = binary.AppendUvarint(p, uint64(price))
	return binary.AppendUvarint(p, uint64(size)), nil
}

func appendMeta(p []byte, m *Meta) ([]byte, error) {
	vals := [...]struct {
		flag int
		name string
		d    decimal.Decimal
	}{{metaTick, "tick", m.TickSize}, {metaMinSize, "min_size", m.MinOrderSize}, {metaEndDate, "", decimal.Decimal{}},
		{metaResolved, "payout", m.Payout}, {metaRewardMaxSpread, "reward_max_spread", m.RewardMaxSpread},
		{metaRewardMinSize, "reward_min_size", m.RewardMinSize}, {metaRewardDailyRate, "reward_daily_rate", m.RewardDailyRate}}
	var fx [len(vals)]exchange.Fixed
	flags := 0
	for i, v := range vals {
		var err error
		switch v.flag {
		case metaEndDate:
			if !m.EndDate.IsZero() {
				flags |= v.flag
			}
			continue
		case metaResolved:
			if m.Resolved {
				flags |= v.flag
			}
		}
		if fx[i], err = checkFixed(v.name, v.d); err != nil {
			return p, err
		}
		if fx[i] != 0 {
			flags |= v.flag
		}
	}
	if m.SecondsDelay != 0 {
		flags |= metaSecondsDelay
	}
	if m.NegRisk {
		flags |= metaNegRisk
	}
	if m.Question != "" {
		flags |= metaQuestion
	}
	if m.Slug != "" {
		flags |= metaSlug
	}
	p = binary.AppendUvarint(p, uint64(flags))
	for i, v := range vals {
		if flags&v.flag == 0 {
			continue
		}
		if v.flag == metaEndDate {
			t := m.EndDate.UTC()
			p = binary.AppendVarint(p, t.Unix())
			p = binary.AppendUvarint(p, uint64(t.Nanosecond()))
			continue
		}
		p = binary.AppendUvarint(p, uint64(fx[i]))
	}
	return p, nil
}

// appendMetaNames appends the meta fields after the amounts: the delay,
// then the question's and the slug's references in the block's string
// table (neg_risk is the flag alone).
func (b *blockEncoder) appendMetaNames(p []byte, m *Meta) []byte {
	if m.SecondsDelay != 0 {
		p = binary.AppendUvarint(p, uint64(m.SecondsDelay))
	}
	if m.Question != "" {
		p = binary.AppendUvarint(p, b.ref(m.Question))
	}
	if m.Slug != "" {
		p = binary.AppendUvarint(p, b.ref(m.Slug))
	}
	return p
}
